/// Why a TLS context could not be made: each case names the file and says what is wrong with it, in one line.
public enum TLSError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A file cannot be opened (missing, unreadable, a directory).
    case unreadable(path: String, reason: String)
    /// The certificate file holds no PEM certificate OpenSSL accepts.
    case invalidCertificate(path: String, reason: String)
    /// The key file holds no PEM private key OpenSSL accepts (or the key is encrypted).
    case invalidKey(path: String, reason: String)
    /// The private key is not the key of the certificate.
    case keyMismatch(certificate: String, key: String)
    /// The certificate's validity ended.
    case expired(path: String, notAfter: String)
    /// The certificate's validity has not begun.
    case notYetValid(path: String, notBefore: String)
    /// The CA file given to verify servers cannot be loaded.
    case invalidCertificateAuthority(path: String, reason: String)
    /// OpenSSL failed in a way no file explains.
    case library(String)

    /// The reason, one line.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .invalidCertificate(let path, let reason): "\(path) is not a PEM certificate (chain): \(reason)"
        case .invalidKey(let path, let reason): "\(path) is not an unencrypted PEM private key: \(reason)"
        case .keyMismatch(let certificate, let key):
            "the key in \(key) does not belong to the certificate in \(certificate)"
        case .expired(let path, let notAfter): "the certificate in \(path) expired on \(notAfter)"
        case .notYetValid(let path, let notBefore): "the certificate in \(path) is not valid before \(notBefore)"
        case .invalidCertificateAuthority(let path, let reason): "cannot load CA certificates from \(path): \(reason)"
        case .library(let reason): "OpenSSL: \(reason)"
        }
    }
}
