// libFuzzer harness for the `android-key-description` target of WebAuthnFuzzing (see Docs/Fuzzing.md).
import FuzzShim

// SwiftPM links an executable's entry point as `<module>_main`; hand it to libFuzzer's driver.
@_cdecl("fuzz_android_key_description_main")
public func entryPoint(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(target: "android-key-description", argc: argc, argv: argv)
}
