// The pure-Swift helpers (CivilDate, appendDecimal, appendJSONString, …) live in PortableBasics, which the client
// library's modules use without this module's system calls; every module importing Basics sees them too.
@_exported public import PortableBasics
