package import Basics

extension WebSocket {
    /// What every connection of one endpoint shares and never changes: its configuration and its logger. A route
    /// makes one and its connections keep a reference to it, so an open connection does not carry a copy of the
    /// configuration's limits and timers in its own memory.
    package final class Settings: Sendable {
        /// Limits and timers of the connections.
        package let configuration: WebSocketConfiguration
        /// Where protocol problems are logged.
        package let logger: Logger

        /// Settings for the connections of one endpoint (or of one client connection).
        /// - Parameters:
        ///   - configuration: Limits and timers.
        ///   - logger: Where protocol problems are logged.
        package init(configuration: WebSocketConfiguration, logger: Logger) {
            self.configuration = configuration
            self.logger = logger
        }
    }
}
