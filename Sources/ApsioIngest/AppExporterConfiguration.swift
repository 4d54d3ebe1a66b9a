package import ApsioCore
package import ApsioRedaction
package import ApsioPlatform
import ApsioNet

/// What one app's exporter is given: whose journal entries, what they are sent as, and its bounds.
package struct AppExporterConfiguration: Sendable {
    package var app: AppName
    /// The app's unit, whose entries and crashes are its records.
    package var unit: String
    /// The app file's `MinPriority=` as a journald priority 0–7 (the log bridge's floor, 13.7).
    package var minPriority: Int
    /// The app file's `Match=` and `Exclude=`: which of the unit's lines are read.
    package var selection: JournalEntrySelection
    /// The app file's `Families=`: a family it leaves out is never sent, whatever the policy says.
    package var families: Set<CaptureFamily>
    /// Where an app without a saved cursor starts (the app file's `StartAt=`): `.now` by default
    /// (its past is not sent), `.boot` or `.oldest`. The start is saved before anything is read.
    package var firstStart: JournalStart
    /// The Resource of §2; the exporter sets `session.id` per group.
    package var resource: OTLPResource
    /// Nothing is sent until `resourceSettled()`: the daemon is still reading what `resource`
    /// lacks (the unit's main executable: `service.version`, `app.build_id`).
    package var waitsForResource: Bool
    /// The built-in rules and the app file's `Redact=`.
    package var redactor: Redactor
    package var limits: Limits
    /// The read-ahead window: the reader stops while this many records, or bytes (as estimated in
    /// OTLP JSON), wait. About two batches, so one can be read while the other is in flight.
    package var windowRecords: Int
    package var windowBytes: Int
    /// The app file's `RateLimit=` and `RateLimitBurst=`; nil for no limit.
    package var rateLimit: IngestRateLimit?
    /// How batches are written (`Encoding=`); a backend that answers 415 gets the other one.
    package var encoding: OTLPEncoding
    /// How batches are compressed (`Compression=`); a backend that refuses zstd gets gzip.
    package var compression: OTLPCompression
    /// gzip level of the request bodies, one of `Gzip.levels`; by default the level every body the
    /// daemon sends uses (docs/ingest.md says why).
    package var gzipLevel: Int32
    /// zstd level of the request bodies, one of `Zstd.levels`.
    package var zstdLevel: Int32
    /// The least time between two syncs of the cursor file to disk. The cursor is written after
    /// every accepted batch (so a crash of apsiod sends again at most the batch in flight); this
    /// bounds what a power cut sends again.
    package var cursorSyncInterval: Duration

    package init(
        app: AppName, unit: String, minPriority: Int = 7, selection: JournalEntrySelection = .everything,
        families: Set<CaptureFamily> = Set(CaptureFamily.allCases),
        firstStart: JournalStart = .now, resource: OTLPResource, waitsForResource: Bool = false, redactor: Redactor,
        limits: Limits = .spec, encoding: OTLPEncoding = .protobuf, compression: OTLPCompression = .gzip,
        rateLimit: IngestRateLimit? = nil, windowRecords: Int? = nil, windowBytes: Int? = nil,
        gzipLevel: Int32 = Gzip.defaultLevel, zstdLevel: Int32 = Zstd.defaultLevel, cursorSyncInterval: Duration = .seconds(5)
    ) {
        self.app = app
        self.unit = unit
        self.minPriority = minPriority
        self.selection = selection
        self.families = families
        self.firstStart = firstStart
        self.resource = resource
        self.waitsForResource = waitsForResource
        self.redactor = redactor
        self.limits = limits
        self.encoding = encoding
        self.compression = compression
        self.rateLimit = rateLimit
        self.windowRecords = windowRecords ?? 2 * limits.ingestBatchRecords
        self.windowBytes = windowBytes ?? 2 * limits.ingestBatchBytes
        self.gzipLevel = gzipLevel
        self.zstdLevel = zstdLevel
        self.cursorSyncInterval = cursorSyncInterval
    }
}
