/// What the Resource (2.1, LINUX-PROFILE §2) and `apsio.storage.app` take from a unit's main
/// executable and the Debian package that owns it.
package struct ExecutableFacts: Sendable, Equatable {
    /// The owning package as dpkg knows it.
    package struct Package: Sendable, Equatable {
        /// `Package`, with `:ARCH` for a multi-arch `same` package (`libfoo1:amd64`).
        package var name: String
        package var version: String
        /// `Installed-Size` × 1024: dpkg counts in KiB.
        package var installedBytes: Int64?
        package init(name: String, version: String, installedBytes: Int64?) {
            self.name = name
            self.version = version
            self.installedBytes = installedBytes
        }
    }

    package var path: String
    /// The GNU build-id note, lowercase hex, as `readelf -n`, `debuginfod` and `eu-unstrip` name it.
    package var gnuBuildID: String?
    package var package: Package?
    /// The executable's size in bytes.
    package var fileSize: Int64?

    package init(path: String, gnuBuildID: String? = nil, package: Package? = nil, fileSize: Int64? = nil) {
        self.path = path
        self.gnuBuildID = gnuBuildID
        self.package = package
        self.fileSize = fileSize
    }

    /// `service.version` when the app file sets no `Version=`: the package's version, else `unknown`.
    package var serviceVersion: String { package?.version ?? "unknown" }

    /// `app.build_id`: the build-id, which matches the symbol files, else `NAME@VERSION`.
    package func appBuildID(serviceName: String, serviceVersion: String) -> String {
        gnuBuildID ?? "\(serviceName)@\(serviceVersion)"
    }

    /// `apsio.storage.app`: the package's installed size, else the executable's own size.
    package var appStorageBytes: Int64? { package?.installedBytes ?? fileSize }
}
