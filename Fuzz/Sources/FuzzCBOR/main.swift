// libFuzzer entry point: the CBOR decoder, plain and canonical, whole and prefix.
// The only code here is the ABI shim; every byte goes to the parser as hostile input.
import WebAuthnRP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? CBOR.decode(bytes)
    _ = try? CBOR.decode(bytes, options: .ctap2Canonical)
    _ = try? CBOR.decodePrefix(bytes[...])
    return 0
}

// SwiftPM links an executable's entry point as `<module>_main`; hand control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                     _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

@_cdecl("FuzzCBOR_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzz)
}
