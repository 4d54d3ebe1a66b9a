/// The version every binary reports with `--version` and the `.deb` carries.
public enum ApsioVersion {
    public static let current = "0.1.0"
}
