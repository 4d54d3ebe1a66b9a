public import ApsioCore
public import ApsioPlatform

/// What the agent knows of one configured app when it starts serving it.
public struct AppDescription: Sendable, Equatable {
    /// The app file's name, without `.conf`: how the operator names the app.
    public var name: String
    /// The systemd unit, for example `nginx.service`.
    public var unit: String
    public var installationID: String
    /// `service.name`.
    public var serviceName: String
    /// `device.model.identifier`, `os.name` + " " + `os.version`, `service.version`.
    public var model: String
    public var os: String
    public var release: String
    /// The families the app file leaves on (16.5: the live channel never sends a family that is
    /// off); the policy may turn more off.
    public var families: Set<CaptureFamily>
    public var roots: SysfsRoots
    /// Where the unit's `StateDirectory=` and `CacheDirectory=` are (`apsio.storage.data`, `.cache`).
    public var storage: StorageReader

    public init(
        name: String, unit: String, installationID: String, serviceName: String, model: String, os: String,
        release: String, families: Set<CaptureFamily> = Set(CaptureFamily.allCases), roots: SysfsRoots = .system,
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
