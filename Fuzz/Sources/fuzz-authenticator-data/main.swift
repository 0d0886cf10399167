// libFuzzer harness for the `authenticator-data` target of WebAuthnFuzzing (see Docs/Fuzzing.md).
import FuzzShim

// SwiftPM links an executable's entry point as `<module>_main`; hand it to libFuzzer's driver.
@_cdecl("fuzz_authenticator_data_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(target: "authenticator-data", argc: argc, argv: argv)
}
