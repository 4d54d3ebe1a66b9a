package import ApsioJSON
/// What `apps` says of one configured app: what the team needs to recognise the install and to
/// list the machine as a tester (LINUX-PROFILE §R).
package struct ControlAppInfo: Sendable, Equatable {
    package var name: String
    package var unit: String
    /// `service.name`, `service.version` and `app.build_id` as the records carry them; nil where
    /// they are not known (the daemon is not running, or has not read the executable yet).
    package var serviceName: String?
    package var serviceVersion: String?
    package var buildID: String?
    /// `app.installation.id`; nil when the app file turns it off (`InstallationId=no`) or the
    /// daemon has not served the app yet.
    package var installationID: String?
    /// The id was left out because the asker is neither root nor in the admin group: with a tester
    /// id, which the backend's policy publishes, it makes the tester proof (spec 16.1). Set for
    /// every app then, whether or not it has an id, so the answer tells a local user nothing more.
    package var installationIDHidden: Bool

    package init(
        name: String, unit: String, serviceName: String? = nil, serviceVersion: String? = nil,
        buildID: String? = nil, installationID: String? = nil, installationIDHidden: Bool = false
    ) {
        self.name = name
        self.unit = unit
        self.serviceName = serviceName
        self.serviceVersion = serviceVersion
        self.buildID = buildID
        self.installationID = installationID
        self.installationIDHidden = installationIDHidden
    }

    /// What an asker who may not see the installation id is told.
    package func withholdingInstallationID() -> ControlAppInfo {
        var withheld = self
        withheld.installationID = nil
        withheld.installationIDHidden = true
        return withheld
    }

    package var json: JSONValue {
        .object([
            "name": .string(name),
            "unit": .string(unit),
            "service_name": serviceName.map(JSONValue.string) ?? .null,
            "service_version": serviceVersion.map(JSONValue.string) ?? .null,
            "build_id": buildID.map(JSONValue.string) ?? .null,
            "installation_id": installationID.map(JSONValue.string) ?? .null,
            "installation_id_hidden": .bool(installationIDHidden),
        ])
    }

    init(json value: JSONValue) throws(ControlError) {
        let reader = try ControlFieldReader(value, what: "an app")
        name = try reader.string("name")
        unit = try reader.string("unit")
        serviceName = try reader.optionalString("service_name")
        serviceVersion = try reader.optionalString("service_version")
        buildID = try reader.optionalString("build_id")
        installationID = try reader.optionalString("installation_id")
        // A daemon from before the id was withheld sends no flag, and always sent the id.
        installationIDHidden = try reader.optionalBool("installation_id_hidden") ?? false
    }
}
