/// One D-Bus value, decoded from a message into plain Swift so it can leave the bus's thread.
package indirect enum BusValue: Sendable, Equatable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor a peer tried to pass; the connection refuses them, so only its index is kept.
    case unixFD(Int32)
    case array([BusValue])
    case dictEntry(BusValue, BusValue)
    case structure([BusValue])
    case variant(BusValue)

    /// The value with any variant wrapping removed.
    package var unwrapped: BusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    package var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    package var uint32: UInt32? {
        if case .uint32(let value) = unwrapped { return value }
        return nil
    }

    package var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    /// `as`.
    package var strings: [String]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [String] = []
        for item in items {
            guard let text = item.string else { return nil }
            out.append(text)
        }
        return out
    }

    /// `ay`.
    package var bytes: [UInt8]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard case .byte(let byte) = item else { return nil }
            out.append(byte)
        }
        return out
    }

    /// `a{sv}` and other string-keyed dictionaries; a later duplicate key wins, as a peer's last word.
    package var stringDictionary: [String: BusValue]? {
        guard case .array(let items) = unwrapped else { return nil }
        var out: [String: BusValue] = [:]
        for item in items {
            guard case .dictEntry(let key, let value) = item, let name = key.string else { return nil }
            out[name] = value.unwrapped
        }
        return out
    }
}
