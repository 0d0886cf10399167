// The libFuzzer ABI shim shared by every harness: hands the driver a callback that runs the
// selected WebAuthnFuzzing target and traps on a broken property, so libFuzzer records the
// input as a crash. All checking lives in WebAuthnFuzzing (and is replayed by swift test).
import Foundation
import WebAuthnFuzzing

private func report(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// The target this process fuzzes; set once, before the driver starts.
nonisolated(unsafe) private var selectedTarget: FuzzTarget?

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let target = selectedTarget else { return 0 }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let violation = target.run(bytes) {
        report("==PROPERTY VIOLATION== \(violation)")
        // The trap is the report: libFuzzer writes the input to the artifact folder.
        preconditionFailure("property violation in \(target.name)")
    }
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt

/// Runs libFuzzer's driver over the named target with the process arguments.
/// - Parameters:
///   - name: a `FuzzTarget` name, for example `cbor`.
///   - argc: the process argument count.
///   - argv: the process arguments (libFuzzer flags and corpus folders).
/// - Returns: the driver's exit status.
public func runFuzzer(target name: String, argc: CInt,
                      argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    guard let target = FuzzTarget.named(name) else {
        report("no fuzz target named \(name)")
        return 2
    }
    FuzzTarget.prepare()
    selectedTarget = target
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOneInput)
}
