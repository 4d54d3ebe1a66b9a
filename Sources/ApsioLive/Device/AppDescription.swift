package import ApsioCore
package import ApsioPlatform

/// What the agent knows of one configured app when it starts serving it.
package struct AppDescription: Sendable, Equatable {
    /// The app file's name, without `.conf`: how the operator names the app.
    package var name: AppName
    /// The systemd unit, for example `nginx.service`.
    package var unit: String
    package var installationID: String
    /// `service.name`.
    package var serviceName: String
    /// `device.model.identifier`, `os.name` + " " + `os.version`.
    package var model: String
    package var os: String
    /// `service.version` as the records carry it, the hello's `release`; nil while the daemon is
    /// still reading it from the unit's main executable, and no hello goes before it is known
    /// (`AppRuntime.releaseKnown`).
    package var release: String?
    /// The families the app file leaves on (16.5: the live channel never sends a family that is
    /// off); the policy may turn more off.
    package var families: Set<CaptureFamily>
    package var roots: SysfsRoots
    /// Where the unit's `StateDirectory=` and `CacheDirectory=` are (`apsio.storage.data`, `.cache`).
    package var storage: StorageReader

    package init(
        name: AppName, unit: String, installationID: String, serviceName: String, model: String, os: String,
        release: String?, families: Set<CaptureFamily> = Set(CaptureFamily.allCases), roots: SysfsRoots = .system,
        storage: StorageReader = StorageReader()
    ) {
        self.name = name
        self.unit = unit
        self.installationID = installationID
        self.serviceName = serviceName
        self.model = model
        self.os = os
        self.release = release
        self.families = families
        self.roots = roots
        self.storage = storage
    }
}
