import HTTPServer
import HTTPWire

/// The headers that tell browsers how to treat every answer (docs/protocol.md §6.2), added in one place to whatever the
/// rest answered — a handler's response, an error, a refusal of the middleware inside it:
///
/// - every response: `X-Content-Type-Options: nosniff` (a JSON or text body is never run as a script or a page);
/// - the static files (what no route matched, their `304`s and `404`s too: a `304` carries no type, and a browser
///   updates the page it keeps from it): ``contentSecurityPolicy`` and `Referrer-Policy: no-referrer`;
/// - every response that sets no `Cache-Control` of its own, so every JSON answer: `Cache-Control: no-store` (the
///   static files keep their `no-cache` and revalidate by ETag);
/// - over TLS: `Strict-Transport-Security: max-age=31536000` (one year).
///
/// A `101` opening a WebSocket is left as it is.
struct SecurityHeaders: HTTPMiddleware {
    /// Where the Camera source's pose detector loads from (`Public/js/camera.js`): MediaPipe Tasks Vision's module,
    /// its WebAssembly loader and binary, at the version the page pins.
    static let poseDetectorScripts = "https://cdn.jsdelivr.net/npm/@mediapipe/tasks-vision@0.10.14/"
    /// Where the pose detector's model comes from (`Public/js/camera.js`).
    static let poseDetectorModels = "https://storage.googleapis.com/mediapipe-models/"

    /// The pages' policy: everything from this origin, and only the pose detector from elsewhere. Scripts also from
    /// the detector's CDN and WebAssembly compiled (`'wasm-unsafe-eval'`; never `'unsafe-eval'` or inline
    /// script); fetches and WebSockets to this origin (`'self'` covers `ws:`/`wss:` of the same host and port),
    /// the detector's files, and `blob:` (a page reading back a file it made for download); `data:` images (the
    /// empty icon); no plugins, no `<base>`, forms only to this origin, and no framing (clickjacking).
    static let contentSecurityPolicy = [
        "default-src 'self'",
        "script-src 'self' 'wasm-unsafe-eval' \(poseDetectorScripts)",
        "connect-src 'self' blob: \(poseDetectorScripts) \(poseDetectorModels)",
        "img-src 'self' data:",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ].joined(separator: "; ")

    /// Whether the server speaks TLS (then it asks browsers to keep to it).
    let isTLS: Bool

    func complete(_ response: inout HTTPResponse, to request: HTTPRequest) {
        guard response.status != .switchingProtocols else { return }
        response.headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        if request.route == nil {
            response.headers.replaceOrAdd(name: "Content-Security-Policy", value: Self.contentSecurityPolicy)
            response.headers.replaceOrAdd(name: "Referrer-Policy", value: "no-referrer")
        }
        if !response.headers.contains(name: "Cache-Control") {
            response.headers.add(name: "Cache-Control", value: "no-store")
        }
        if isTLS {
            response.headers.replaceOrAdd(name: "Strict-Transport-Security", value: "max-age=31536000")
        }
    }
}
