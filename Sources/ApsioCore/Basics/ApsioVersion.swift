/// The version every binary reports with `--version` and the `.deb` carries.
package enum ApsioVersion {
    package static let current = "0.1.0"
}
