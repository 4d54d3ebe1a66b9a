public import ApsioCore

/// How much configuration is read: each file's size and lines, and how many app files.
public struct ConfigurationLimits: Sendable, Equatable {
    public var file: UnitFileLimits
    /// Entries of `apps.d` looked at, in name order; past this the rest are reported, not read.
    public var maxAppFiles: Int

    public init(file: UnitFileLimits = .standard, maxAppFiles: Int = 256) {
        self.file = file
        self.maxAppFiles = maxAppFiles
    }

    public static let standard = ConfigurationLimits()
}
