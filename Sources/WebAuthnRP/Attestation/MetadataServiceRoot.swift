import Foundation
public import WebAuthnCrypto

extension KnownAttestationRoots {
    /// GlobalSign Root CA - R3: the root of the production FIDO Metadata Service BLOB's signing
    /// chain (`https://mds3.fidoalliance.org/`). Never trusted implicitly: pass it as the
    /// `trustAnchor` of ``MetadataBLOB/init(jws:trustAnchor:crls:at:)-([UInt8],_,_,_)`` to opt in.
    ///
    /// SHA-256 fingerprint `cbb522d7b7f127ad6a0113865bdf1cd4102e7d0759af635a7cf4720dc963c53b`
    /// (as published in the Mozilla/Debian `ca-certificates` root store and Microsoft's Trusted
    /// Root Program list); valid 2009-03-18 to 2029-03-18. Nil only if the embedded certificate
    /// could not be parsed.
    public static var fidoMetadataServiceRoot: Certificate? {
        guard let entry = embedded.first(where: { $0.name == "GlobalSign Root CA - R3" }), let der = entry.derBytes else {
            return nil
        }
        return try? Certificate(derEncoded: der)
    }
}
