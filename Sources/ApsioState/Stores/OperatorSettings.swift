package import ApsioCore

/// What the operator set with `apsioctl` (LINUX-PROFILE §13): kept in `settings.json`, read by the
/// daemon at start and on every change, written by either program.
///
/// Every default is the cautious one: live inspection off, no consent override (the app file's
/// `Consent=` decides, and absent means nothing leaves), Data Saver off.
package struct OperatorSettings: Sendable, Equatable {
    package var dataSaver: Bool
    private var apps: [AppName: AppSettings]

    package init(dataSaver: Bool = false) {
        self.dataSaver = dataSaver
        apps = [:]
    }

    package func allowsLive(_ app: AppName) -> Bool { apps[app]?.allowLive ?? false }
    package func consentOverride(_ app: AppName) -> ConsentOverride? { apps[app]?.consent }

    package mutating func setAllowsLive(_ allowed: Bool, for app: AppName) {
        change(app) { $0.allowLive = allowed }
    }

    package mutating func setConsentOverride(_ consent: ConsentOverride?, for app: AppName) {
        change(app) { $0.consent = consent }
    }

    /// The app was removed: a name added again starts from the defaults, as a reinstalled app does.
    package mutating func forget(_ app: AppName) {
        apps[app] = nil
    }

    /// The apps with a setting that differs from the defaults.
    package var appsWithSettings: [AppName] { apps.keys.sorted() }

    private mutating func change(_ app: AppName, _ body: (inout AppSettings) -> Void) {
        var settings = apps[app] ?? AppSettings()
        body(&settings)
        apps[app] = settings.isDefault ? nil : settings
    }

    struct AppSettings: Codable, Equatable, Sendable {
        var allowLive = false
        var consent: ConsentOverride?

        var isDefault: Bool { !allowLive && consent == nil }

        enum CodingKeys: String, CodingKey {
            case allowLive = "allow_live"
            case consent
        }

        init() {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            allowLive = try container.decodeIfPresent(Bool.self, forKey: .allowLive) ?? false
            consent = try container.decodeIfPresent(ConsentOverride.self, forKey: .consent)
        }
    }
}

extension OperatorSettings: Codable {
    /// Bumped only for a change an older reader would misread; fields it does not know it ignores.
    static let formatVersion = 1

    enum CodingKeys: String, CodingKey {
        case version
        case dataSaver = "data_saver"
        case apps
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decodeIfPresent(Int.self, forKey: .version) ?? Self.formatVersion
        guard version <= Self.formatVersion else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container, debugDescription: "format version \(version) is newer than this apsio's")
        }
        dataSaver = try container.decodeIfPresent(Bool.self, forKey: .dataSaver) ?? false
        let named = try container.decodeIfPresent([String: AppSettings].self, forKey: .apps) ?? [:]
        apps = [:]
        for (name, settings) in named {
            // A name that could not be an app is nobody's setting.
            guard let app = try? AppName(name), !settings.isDefault else { continue }
            apps[app] = settings
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.formatVersion, forKey: .version)
        try container.encode(dataSaver, forKey: .dataSaver)
        try container.encode(Dictionary(uniqueKeysWithValues: apps.map { ($0.key.rawValue, $0.value) }), forKey: .apps)
    }
}
