// libFuzzer harness for the `attstmt-fido-u2f` target of WebAuthnFuzzing (see Docs/Fuzzing.md).
import FuzzShim

// SwiftPM links an executable's entry point as `<module>_main`; hand it to libFuzzer's driver.
@_cdecl("fuzz_attstmt_fido_u2f_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(target: "attstmt-fido-u2f", argc: argc, argv: argv)
}
