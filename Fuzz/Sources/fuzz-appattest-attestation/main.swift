// libFuzzer harness for the `appattest-attestation` target of WebAuthnFuzzing (see Docs/Fuzzing.md).
import FuzzShim

// SwiftPM links an executable's entry point as `<module>_main`; hand it to libFuzzer's driver.
@_cdecl("fuzz_appattest_attestation_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(target: "appattest-attestation", argc: argc, argv: argv)
}
