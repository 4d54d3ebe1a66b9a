/// Something worked out from a record's attributes (their JSON, their redaction, their size),
/// remembered for the last attribute array it was worked out from.
///
/// The journal follower hands consecutive records of a unit the same array (one storage, shared)
/// when their attributes come out the same, which is nearly every record of a service. Recognising
/// that storage costs a pointer comparison, where comparing the attributes would cost a string
/// comparison each. The memo keeps the array it was made from, so that storage cannot be freed and
/// reused for other attributes while it is remembered: the same storage means the same attributes.
/// Arrays that are equal but stored apart are simply worked out again.
public struct AttributeMemo<Value> {
    private var attributes: [Attribute]?
    private var value: Value?

    public init() {}

    public mutating func value(for attributes: [Attribute], make: ([Attribute]) -> Value) -> Value {
        if let known = self.attributes, let value, Self.sameStorage(known, attributes) { return value }
        let made = make(attributes)
        self.attributes = attributes
        value = made
        return made
    }

    private static func sameStorage(_ left: [Attribute], _ right: [Attribute]) -> Bool {
        guard left.count == right.count else { return false }
        if left.isEmpty { return true }
        return left.withUnsafeBufferPointer { left in
            right.withUnsafeBufferPointer { right in left.baseAddress == right.baseAddress }
        }
    }
}

extension AttributeMemo: Sendable where Value: Sendable {}
