@_exported import NetworkTestSupport
