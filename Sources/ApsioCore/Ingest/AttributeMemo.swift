/// Something worked out from a record's attributes (their JSON, their redaction, their size),
/// remembered for the last attribute array it was worked out from.
///
/// The journal follower hands consecutive records of a unit the same array (one storage, shared)
/// when their attributes come out the same, which is nearly every record of a service. Recognising
/// that storage costs a pointer comparison, where comparing the attributes would cost a string
/// comparison each. The memo keeps the array it was made from, so that storage cannot be freed and
/// reused for other attributes while it is remembered: the same storage means the same attributes.
/// Arrays that are equal but stored apart are simply worked out again.
///
/// Inlinable: it is generic and used from other modules once per record, where an unspecialised
/// call would go through value witness tables for every copy of `Value`.
package struct AttributeMemo<Value> {
    /// Kept only so that its storage is not freed and reused for other attributes while remembered.
    @usableFromInline var attributes: [Attribute] = []
    /// Where `attributes` is stored (its address), compared without touching the array itself:
    /// reading the array would retain and release it, and that storage is the one every record of
    /// a unit shares across threads.
    @usableFromInline var storage: UInt = 0
    @usableFromInline var value: Value?

    @inlinable package init() {}

    @inlinable package mutating func value(for attributes: [Attribute], make: ([Attribute]) -> Value) -> Value {
        withValue(for: attributes, make: make) { $0 }
    }

    /// Calls `body` with the value for `attributes`, lent rather than copied out: on the hot path
    /// (a value holding an array, once per record), a copy would be a retain and a release.
    @inlinable package mutating func withValue<Result>(
        for attributes: [Attribute], make: ([Attribute]) -> Value, _ body: (borrowing Value) -> Result
    ) -> Result {
        let incoming = Self.storage(of: attributes)
        if value == nil || incoming != storage || attributes.count != self.attributes.count {
            value = make(attributes)
            self.attributes = attributes
            storage = Self.storage(of: self.attributes)
        }
        return body(value.unsafelyUnwrapped)
    }

    /// Empty arrays all count as the same storage (0): their values are the same anyway.
    @inlinable static func storage(of attributes: [Attribute]) -> UInt {
        attributes.isEmpty ? 0 : attributes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }
}

extension AttributeMemo: Sendable where Value: Sendable {}
