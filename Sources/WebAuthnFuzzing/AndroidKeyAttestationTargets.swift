import WebAuthnCrypto
import WebAuthnRP

/// Android key attestation: the KeyDescription (the attestation extension's value), read by the
/// parser both `android-key` statements and `AndroidKeyAttestationService` use. Seeds: the key
/// descriptions of the real device chains in `Fixtures/recorded/android-key-attestation/`.
enum AndroidKeyAttestationTargets {
    static let all: [FuzzTarget] = [keyDescription]

    static let keyDescription = FuzzTarget(
        "android-key-description",
        checks: """
            the input as a KeyDescription (every attestation version's fields, strict DER, unknown tags \
            skipped) and its attestationApplicationId: the same reading twice; an accepted description \
            with one more element appended (a later schema's field) reads the same
            """
    ) { bytes, check in
        let input = Array(bytes)
        let first = AndroidKeyDescriptionReading.read(input)
        check.requireSame(first, AndroidKeyDescriptionReading.read(input), "reading twice gives the same result")
        guard first.hasPrefix("accepted"), let root = try? DER.parse(input) else { return }
        // Elements after the eighth are ignored: the same SEQUENCE with a NULL appended reads the same.
        let content = Array(root.content) + [0x05, 0x00]
        let extended = [0x30] + DEREncoder.length(content.count) + content
        check.requireSame(AndroidKeyDescriptionReading.read(extended), first, "a description with an element appended reads the same")
    }
}
