package import ApsioCore
package import ApsioJSON

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

    struct AppSettings: Equatable, Sendable {
        var allowLive = false
        var consent: ConsentOverride?

        var isDefault: Bool { !allowLive && consent == nil }
    }
}

/// `settings.json`, read with the strict parser every file and body goes through (`JSONParser`:
/// a key written twice is refused, not guessed at) and written for a person to read.
extension OperatorSettings {
    /// Bumped only for a change an older reader would misread; fields it does not know it ignores.
    static let formatVersion = 1

    package struct FormatError: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    package init(json: JSONValue) throws(FormatError) {
        guard case .object(let members) = json else { throw FormatError(description: "not a JSON object") }
        if let version = try Self.member(members, "version", as: \.numberValue, "a number") {
            guard version <= Double(Self.formatVersion) else {
                throw FormatError(description: "format version \(version) is newer than this apsio's")
            }
        }
        self.init(dataSaver: try Self.member(members, "data_saver", as: \.boolValue, "true or false") ?? false)
        for (name, value) in try Self.member(members, "apps", as: \.objectValue, "an object") ?? [:] {
            guard case .object(let fields) = value else { throw FormatError(description: "apps.\(name) is not an object") }
            var settings = AppSettings()
            settings.allowLive = try Self.member(fields, "allow_live", as: \.boolValue, "true or false", in: "apps.\(name).") ?? false
            if let consent = try Self.member(fields, "consent", as: \.stringValue, "a string", in: "apps.\(name).") {
                guard let override = ConsentOverride(rawValue: consent) else {
                    throw FormatError(description: "apps.\(name).consent is \(consent), not granted or denied")
                }
                settings.consent = override
            }
            // A name that could not be an app is nobody's setting.
            guard let app = try? AppName(name), !settings.isDefault else { continue }
            apps[app] = settings
        }
    }

    /// What `settings.json` holds: every field, the defaults too, so an operator reading it sees them.
    package var json: JSONValue {
        var named: [String: JSONValue] = [:]
        for (app, settings) in apps {
            var fields: [String: JSONValue] = ["allow_live": .bool(settings.allowLive)]
            if let consent = settings.consent { fields["consent"] = .string(consent.rawValue) }
            named[app.rawValue] = .object(fields)
        }
        return .object(["version": .number(Double(Self.formatVersion)), "data_saver": .bool(dataSaver), "apps": .object(named)])
    }

    /// A member of the kind `read` takes out, nil when absent or null; another kind is an error.
    private static func member<Value>(
        _ members: [String: JSONValue], _ name: String, as read: (JSONValue) -> Value?, _ kind: String, in path: String = ""
    ) throws(FormatError) -> Value? {
        guard let value = members[name], value != .null else { return nil }
        guard let read = read(value) else { throw FormatError(description: "\(path)\(name) is not \(kind)") }
        return read
    }
}
