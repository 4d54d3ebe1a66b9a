/// Recognises the attribute array something was last worked out from (its JSON, its redaction,
/// its size), so that the caller works it out again only for another array.
///
/// The journal follower hands consecutive records of a unit the same array (one storage, shared)
/// when their attributes come out the same, which is nearly every record of a service. Recognising
/// that storage costs a pointer comparison, where comparing the attributes would cost a string
/// comparison each. The memo keeps the array it last saw, so that storage cannot be freed and
/// reused for other attributes while it is remembered: the same storage means the same attributes.
/// Arrays that are equal but stored apart are simply worked out again.
///
/// Not generic: each caller keeps its own value beside the memo. A generic memo, called once per
/// record from other modules, ran unspecialised there (a generic metadata lookup and value witness
/// calls for every record).
package struct AttributeMemo: Sendable {
    /// Kept only so that its storage is not freed and reused for other attributes while remembered.
    @usableFromInline var attributes: [Attribute] = []
    /// Where `attributes` is stored (its address), compared without touching the array itself:
    /// reading the array would retain and release it, and that storage is the one every record of
    /// a unit shares across threads.
    @usableFromInline var storage: UInt = 0
    @usableFromInline var remembersAny = false

    @inlinable package init() {}

    /// Whether `attributes` is the array seen last. When it is not, it becomes the one remembered,
    /// and the caller works its value out again.
    @inlinable package mutating func isRemembered(_ attributes: [Attribute]) -> Bool {
        let incoming = Self.storage(of: attributes)
        if remembersAny, incoming == storage, attributes.count == self.attributes.count { return true }
        self.attributes = attributes
        storage = incoming
        remembersAny = true
        return false
    }

    /// Empty arrays all count as the same storage (0): their values are the same anyway.
    @inlinable static func storage(of attributes: [Attribute]) -> UInt {
        attributes.isEmpty ? 0 : attributes.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }
}
