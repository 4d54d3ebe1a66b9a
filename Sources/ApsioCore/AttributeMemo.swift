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
        withValue(for: attributes, make: make) { $0 }
    }

    /// Calls `body` with the value for `attributes`, lent rather than copied out: on the hot path
    /// (a value holding an array, once per record), a copy would be a retain and a release.
    public mutating func withValue<Result>(
        for attributes: [Attribute], make: ([Attribute]) -> Value, _ body: (borrowing Value) -> Result
    ) -> Result {
        if value == nil || !Self.sameStorage(self.attributes ?? [], attributes) {
            value = make(attributes)
            self.attributes = attributes
        }
        return body(value.unsafelyUnwrapped)
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
