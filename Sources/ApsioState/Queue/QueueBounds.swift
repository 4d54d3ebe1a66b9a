/// How much one app's record queue may hold before the oldest records fall off (LINUX-PROFILE §4).
package struct QueueBounds: Sendable, Equatable {
    /// Bytes on disk, entry headers included.
    package var maxBytes: Int
    /// Records older than this (by the time they were queued with) are dropped from the front.
    package var maxAge: Duration
    /// The queue is kept in segment files of about this size; the byte bound drops whole segments,
    /// so it is held to at most a quarter of `maxBytes` to keep what one drop loses small.
    package var segmentBytes: Int
    /// The largest payload `append` accepts.
    package var maxEntryBytes: Int

    package init(maxBytes: Int, maxAge: Duration, segmentBytes: Int = 4 << 20, maxEntryBytes: Int = 1 << 20) {
        self.maxBytes = maxBytes
        self.maxAge = maxAge
        self.segmentBytes = segmentBytes
        self.maxEntryBytes = maxEntryBytes
    }

    /// 64 MiB and 7 days an app.
    package static let standard = QueueBounds(maxBytes: 64 << 20, maxAge: .seconds(7 * 86_400))

    var effectiveSegmentBytes: Int {
        max(QueueEntryFormat.headerSize + 1, min(segmentBytes, maxBytes / 4))
    }

    var effectiveMaxEntryBytes: Int {
        max(0, min(maxEntryBytes, effectiveSegmentBytes - QueueEntryFormat.headerSize, QueueEntryFormat.maxPayloadBytes))
    }

    var maxAgeMilliseconds: Int64 { maxAge.wholeMilliseconds }
}
