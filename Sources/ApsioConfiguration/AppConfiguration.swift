package import ApsioCore
package import ApsioNet

/// One app file, `apps.d/NAME.conf`, read and checked: everything the daemon needs to serve the
/// app (LINUX-PROFILE §13). Equatable, so a reload can tell which apps changed.
package struct AppConfiguration: Sendable, Equatable {
    package var name: AppName
    /// The file it was read from.
    package var path: String
    /// `Unit=`: a `.service` unit, never `apsiod.service`.
    package var unit: String
    /// `Name=`, `service.name`; the unit's name without `.service` when not set.
    package var serviceName: String
    /// `Version=`, `service.version`; nil lets the daemon ask dpkg (LINUX-PROFILE §2).
    package var version: String?
    /// `Backend=`: where ingest, policy and (through the policy) live go.
    package var backend: HTTPEndpoint
    /// From `AppKey=` or the file `AppKeyFile=` names; never printed.
    package var appKey: AppKey
    /// `AppKeyFile=`, when the key came from a file.
    package var appKeyFile: String?
    /// `Consent=`; nil when the app file does not say (not asked: nothing leaves).
    package var consent: AppConsent?
    /// `Families=`: all four when not set.
    package var families: Set<CaptureFamily>
    /// `MinPriority=`: journal entries above this syslog priority (less urgent) are not read.
    package var minPriority: Int
    /// `Redact=`.
    package var redaction: AppRedaction
    /// `InstallationId=`: without one the app takes no part in live inspection.
    package var installationID: Bool
    /// `StartAt=`: where ingest starts while the app has no saved position.
    package var startAt: StartAt
    /// `Encoding=`: OTLP/HTTP protobuf or JSON; a backend that answers 415 gets the other.
    package var encoding: OTLPEncoding
    /// `Compression=`: gzip or zstd; a backend that refuses zstd (400 or 415) gets gzip.
    package var compression: OTLPCompression
    /// `RateLimit=` and `RateLimitBurst=`: nil for no limit.
    package var rateLimit: IngestRateLimit?
    /// `Header=` and `HeaderFile=`: what every `POST /v1/logs` carries besides apsiod's own headers.
    package var headers: [AppHeader]
    /// `CAFile=`, `ClientCertificate=`, `ClientKey=`; nil for the system's trust store and no client certificate.
    package var tls: AppTLS?
    /// `Match=` and `Exclude=`: which of the unit's lines are read; every one when there are none.
    package var selection: JournalEntrySelection

    package static let ownUnit = "apsiod.service"
    /// debug: everything reaches the policy's floor, so a raised log level (16.6) has lines to show.
    package static let defaultMinPriority = 7
    /// The OTLP specification's default for senders (docs/configuration.md).
    package static let defaultEncoding = OTLPEncoding.protobuf
    /// gzip, the one compression every OTLP/HTTP receiver reads (docs/configuration.md).
    package static let defaultCompression = OTLPCompression.gzip

    package init(
        name: AppName, path: String, unit: String, serviceName: String? = nil, version: String? = nil,
        backend: HTTPEndpoint, appKey: AppKey, appKeyFile: String? = nil, consent: AppConsent? = nil,
        families: Set<CaptureFamily> = Set(CaptureFamily.allCases), minPriority: Int = AppConfiguration.defaultMinPriority,
        redaction: AppRedaction, installationID: Bool = true, startAt: StartAt = .now,
        encoding: OTLPEncoding = AppConfiguration.defaultEncoding,
        compression: OTLPCompression = AppConfiguration.defaultCompression, rateLimit: IngestRateLimit? = nil,
        headers: [AppHeader] = [], tls: AppTLS? = nil, selection: JournalEntrySelection = .everything
    ) {
        self.name = name
        self.path = path
        self.unit = unit
        self.serviceName = serviceName ?? AppConfiguration.defaultServiceName(unit: unit)
        self.version = version
        self.backend = backend
        self.appKey = appKey
        self.appKeyFile = appKeyFile
        self.consent = consent
        self.families = families
        self.minPriority = minPriority
        self.redaction = redaction
        self.installationID = installationID
        self.startAt = startAt
        self.encoding = encoding
        self.compression = compression
        self.rateLimit = rateLimit
        self.headers = headers
        self.tls = tls
        self.selection = selection
    }

    package static func defaultServiceName(unit: String) -> String {
        unit.hasSuffix(".service") ? String(unit.dropLast(".service".count)) : unit
    }
}
