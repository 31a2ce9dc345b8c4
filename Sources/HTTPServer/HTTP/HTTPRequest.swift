public import HTTPWire

/// A complete request as a handler sees it: the head, the whole body, and what routing captured.
public struct HTTPRequest: Sendable {
    /// The parsed request line and headers.
    public var head: HTTPRequestHead
    /// The body, de-chunked (empty when there was none).
    public var body: [UInt8]
    /// Values captured by the route pattern.
    public var parameters = RouteParameters()
    /// The route the path matched (whatever the method), set before any middleware runs; nil when no route
    /// matched and the fallback (e.g. static files) answers.
    public internal(set) var route: MatchedRoute?
    /// The router's answer, carried from routing (before the middleware) to the handler (after it).
    var match = Router.Match.notFound
    /// The peer's address, when known.
    public var remoteAddress: SocketAddress?
    /// Values middleware attaches for the handlers after it (e.g. who the request runs as), each under a key type.
    public var context = RequestContext()

    /// Creates a request.
    /// - Parameters:
    ///   - head: The head.
    ///   - body: The body.
    ///   - remoteAddress: The peer.
    public init(head: HTTPRequestHead, body: [UInt8] = [], remoteAddress: SocketAddress? = nil) {
        self.head = head
        self.body = body
        self.remoteAddress = remoteAddress
    }

    /// The method.
    public var method: HTTPMethod { head.method }
    /// The percent-decoded path.
    public var path: String { head.path }
    /// The headers.
    public var headers: HTTPHeaders { head.headers }

    /// The first query value named `name`, percent-decoded, or nil.
    /// - Parameter name: The parameter name.
    public func query(_ name: String) -> String? { head.queryItems.first { $0.name == name }?.value }
}

/// A key of ``RequestContext``: a type, usually a caseless enum, or the value's own type when that reads better
/// (`request.context[Identity.self]`).
public protocol RequestContextKey {
    /// The type of the value stored under the key.
    associatedtype Value: Sendable
}

/// What the code before a handler (middleware) attaches to a request for the code after it, by key type:
/// `request.context[Identity.self] = identity` stores a value that `request.context[Identity.self]` reads back as
/// an `Identity?`. The server stores nothing here and knows no key.
///
/// A key is a type (``RequestContextKey``), not a string: a value reads back with its own type, two modules never
/// collide on a name, and a module that keeps its key internal is the only one that can read or write the value.
///
/// A keyed store rather than a request generic over one context type (Hummingbird's `RequestContext`): the router,
/// the middleware list, the pipeline and the WebSocket routes would all have to become generic over the one type
/// every module agrees on; with keys, independent middleware each attach their own value and those types stay as
/// they are. Handlers need not read this at all: a route group that requires a value can resolve it once and hand it
/// to them typed.
///
/// Cost on the request path: storing nothing allocates nothing; the first value is held inline, without an
/// allocation when it fits in three words (a `String` and an enum do); the others go to an array, allocated
/// with the second. A lookup compares key identities in order: meant for a handful of values.
public struct RequestContext: Sendable {
    private struct Entry: Sendable {
        let key: ObjectIdentifier
        var value: any Sendable
    }

    private var first: Entry?
    private var others: [Entry] = []

    /// Creates an empty context.
    public init() {}

    /// The value stored under `key`, or nil; assigning nil removes it.
    /// - Parameter key: The key type.
    public subscript<Key: RequestContextKey>(key: Key.Type) -> Key.Value? {
        get {
            let id = ObjectIdentifier(key)
            if let first, first.key == id { return first.value as? Key.Value }
            for entry in others where entry.key == id { return entry.value as? Key.Value }
            return nil
        }
        set {
            let id = ObjectIdentifier(key)
            let entry = newValue.map { Entry(key: id, value: $0) }
            if first?.key == id {
                first = entry ?? (others.isEmpty ? nil : others.removeFirst())
            } else if let index = others.firstIndex(where: { $0.key == id }) {
                if let entry { others[index] = entry } else { others.remove(at: index) }
            } else if let entry {
                if first == nil { first = entry } else { others.append(entry) }
            }
        }
    }
}
