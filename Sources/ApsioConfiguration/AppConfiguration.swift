public import ApsioCore
public import ApsioNet

/// One app file, `apps.d/NAME.conf`, read and checked: everything the daemon needs to serve the
/// app (LINUX-PROFILE §13). Equatable, so a reload can tell which apps changed.
public struct AppConfiguration: Sendable, Equatable {
    public var name: AppName
    /// The file it was read from.
    public var path: String
    /// `Unit=`: a `.service` unit, never `apsiod.service`.
    public var unit: String
    /// `Name=`, `service.name`; the unit's name without `.service` when not set.
    public var serviceName: String
    /// `Version=`, `service.version`; nil lets the daemon ask dpkg (LINUX-PROFILE §2).
    public var version: String?
    /// `Backend=`: where ingest, policy and (through the policy) live go.
    public var backend: HTTPEndpoint
    /// From `AppKey=` or the file `AppKeyFile=` names; never printed.
    public var appKey: AppKey
    /// `AppKeyFile=`, when the key came from a file.
    public var appKeyFile: String?
    /// `Consent=`; nil when the app file does not say (not asked: nothing leaves).
    public var consent: AppConsent?
    /// `Families=`: all four when not set.
    public var families: Set<CaptureFamily>
    /// `MinPriority=`: journal entries above this syslog priority (less urgent) are not read.
    public var minPriority: Int
    /// `Redact=`.
    public var redaction: AppRedaction
    /// `InstallationId=`: without one the app takes no part in live inspection.
    public var installationID: Bool
    /// `StartAt=`: where ingest starts while the app has no saved position.
    public var startAt: StartAt

    public static let ownUnit = "apsiod.service"
    /// debug: everything reaches the policy's floor, so a raised log level (16.6) has lines to show.
    public static let defaultMinPriority = 7

    public init(
        name: AppName, path: String, unit: String, serviceName: String? = nil, version: String? = nil,
        backend: HTTPEndpoint, appKey: AppKey, appKeyFile: String? = nil, consent: AppConsent? = nil,
        families: Set<CaptureFamily> = Set(CaptureFamily.allCases), minPriority: Int = AppConfiguration.defaultMinPriority,
        redaction: AppRedaction, installationID: Bool = true, startAt: StartAt = .now
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
    }

    public static func defaultServiceName(unit: String) -> String {
        unit.hasSuffix(".service") ? String(unit.dropLast(".service".count)) : unit
    }
}
