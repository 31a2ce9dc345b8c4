public import Basics

/// The base module's lock (``Basics/Locked``), named here too so that this module's files and its clients reach it
/// without importing Basics.
public typealias Locked<Value> = Basics.Locked<Value>
