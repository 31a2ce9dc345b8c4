public import Basics

/// The base module's logger (``Basics/Logger``), named here too so that this module's files and its clients reach
/// it without importing Basics.
public typealias Logger = Basics.Logger

/// The base module's log levels (``Basics/LogLevel``), named here for the same reason as ``Logger``.
public typealias LogLevel = Basics.LogLevel

/// The base module's log line builder (``Basics/LogLine``), named here for the same reason as ``Logger``.
public typealias LogLine = Basics.LogLine
