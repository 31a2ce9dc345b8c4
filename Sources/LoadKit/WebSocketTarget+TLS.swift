public import NetCore

extension WebSocketTarget {
    /// Why the TLS options of a load tool (`--ca`, `--insecure`, `--server-name`) cannot be used.
    public enum TLSOptionError: Error, Equatable, Sendable, CustomStringConvertible {
        /// A TLS option with a `ws://` URL.
        case notForPlainURL
        /// Both a CA file and no verification.
        case conflicting
        /// The server name is empty.
        case emptyServerName
        /// The client context could not be made: the CA file cannot be loaded.
        case context(TLSError)

        /// What is wrong, for the command line.
        public var description: String {
            switch self {
            case .notForPlainURL: "--ca, --insecure and --server-name are for wss:// URLs"
            case .conflicting: "--ca and --insecure: give one, not both"
            case .emptyServerName: "--server-name: empty"
            case .context(let error): "--ca: \(error)"
            }
        }
    }

    /// Sets up TLS for a `wss://` target from a load tool's options: a client context that verifies the server
    /// against `certificateAuthorityFile` (the system's CA certificates when nil), or not at all when `insecure`,
    /// and the name its certificate must carry. For a `ws://` target it only checks that no option was given.
    ///
    /// ```swift
    /// var target = try WebSocketTarget(url: "wss://127.0.0.1:8443/v1/stream")
    /// try target.configureTLS(certificateAuthorityFile: "cert.pem", insecure: false, serverName: "localhost")
    /// ```
    /// - Parameters:
    ///   - certificateAuthorityFile: PEM CA certificates (or the server's self-signed certificate), `--ca`.
    ///   - insecure: Whether not to verify the server at all, `--insecure`.
    ///   - serverName: The name to verify and send as SNI instead of the URL's host, `--server-name`.
    /// - Throws: ``TLSOptionError`` when the options do not fit the URL or the CA file cannot be loaded.
    public mutating func configureTLS(
        certificateAuthorityFile: String?, insecure: Bool, serverName: String?
    ) throws(TLSOptionError) {
        guard usesTLS else {
            if certificateAuthorityFile != nil || insecure || serverName != nil { throw .notForPlainURL }
            return
        }
        if insecure && certificateAuthorityFile != nil { throw .conflicting }
        if let serverName {
            guard !serverName.isEmpty else { throw .emptyServerName }
            self.serverName = serverName
        }
        do {
            tls = try TLSContext.client(certificateAuthorityFile: certificateAuthorityFile, verifiesPeer: !insecure)
        } catch {
            throw .context(error)
        }
    }
}
