import ApsioCore

/// How much configuration is read: each file's size and lines, and how many app files.
package struct ConfigurationLimits: Sendable, Equatable {
    package var file: UnitFileLimits
    /// Entries of `apps.d` looked at, in name order; past this the rest are reported, not read.
    package var maxAppFiles: Int

    package init(file: UnitFileLimits = .standard, maxAppFiles: Int = 256) {
        self.file = file
        self.maxAppFiles = maxAppFiles
    }

    package static let standard = ConfigurationLimits()
}
