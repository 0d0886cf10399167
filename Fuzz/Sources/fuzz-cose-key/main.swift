// libFuzzer harness for the `cose-key` target of WebAuthnFuzzing (see Docs/Fuzzing.md).
import FuzzShim

// SwiftPM links an executable's entry point as `<module>_main`; hand it to libFuzzer's driver.
@_cdecl("fuzz_cose_key_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(target: "cose-key", argc: argc, argv: argv)
}
