/// An argument of a method call this daemon makes; the calls it needs take only these.
package enum BusArgument: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case uint32(UInt32)
    case bool(Bool)
}
