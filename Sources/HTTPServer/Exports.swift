// The event loop, sockets and TLS live in NetCore, the WebSocket connection in WebSocketCore; every module importing
// HTTPServer sees them too, as when they were part of it.
@_exported public import NetCore
@_exported public import WebSocketCore
