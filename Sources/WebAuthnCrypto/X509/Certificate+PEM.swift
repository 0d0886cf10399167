import Foundation

extension Certificate {
    /// Parses one PEM certificate (`-----BEGIN CERTIFICATE-----` … `-----END CERTIFICATE-----`),
    /// the form in which vendors publish attestation roots. Text around the block is ignored;
    /// a second certificate block is refused, so a bundle cannot be mistaken for one root.
    /// - Parameter pemEncoded: the PEM text.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/malformedCertificate``.
    public init(pemEncoded: String) throws(CryptoError) {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        guard pemEncoded.utf8.count <= Self.maximumPEMLength else {
            throw CryptoError(.malformedCertificate, "PEM text longer than \(Self.maximumPEMLength) bytes")
        }
        let blocks = pemEncoded.components(separatedBy: begin)
        guard blocks.count == 2, let tail = blocks.last else {
            throw CryptoError(.malformedCertificate, "PEM text must hold exactly one CERTIFICATE block")
        }
        let bodyAndRest = tail.components(separatedBy: end)
        guard bodyAndRest.count == 2, let body = bodyAndRest.first else {
            throw CryptoError(.malformedCertificate, "PEM CERTIFICATE block has no single END line")
        }
        let base64 = body.filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: base64) else {
            throw CryptoError(.malformedCertificate, "PEM body is not base64")
        }
        try self.init(derEncoded: [UInt8](der))
    }

    /// The subject name as text (`CN=…, O=…`), for logs and display.
    public var subjectName: String { subject.description }

    /// Certificates in PEM form are at most this long (generous for one certificate).
    static let maximumPEMLength = 64 * 1024
}
