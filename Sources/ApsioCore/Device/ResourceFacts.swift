/// What the Resource (2.2, LINUX-PROFILE §2) says about the machine. Nothing here identifies the
/// machine: never `/etc/machine-id`, the DMI product UUID or serial, or a MAC address.
package struct ResourceFacts: Sendable, Equatable, Codable {
    /// `os.name`: `NAME` of os-release (`Debian GNU/Linux`), else `Linux` (`OSRelease.name`); the
    /// reader always sets it.
    package var osName: String?
    /// `os.version`: `VERSION_ID` of os-release (`12`), else `VERSION`, `BUILD_ID` or `unknown`
    /// (`OSRelease.version`); the reader always sets it.
    package var osVersion: String?
    /// `os.build_id`: the kernel release (`uname -r`).
    package var osBuildID: String?
    /// `device.manufacturer`: DMI `sys_vendor`, else the vendor of the device tree's first `compatible`.
    package var deviceManufacturer: String?
    /// `device.model.identifier`: DMI `product_name`, else the device tree's `model`.
    package var deviceModelIdentifier: String?
    /// `host.name`: how a fleet's operators know the box.
    package var hostName: String?

    enum CodingKeys: String, CodingKey {
        case osName = "os.name"
        case osVersion = "os.version"
        case osBuildID = "os.build_id"
        case deviceManufacturer = "device.manufacturer"
        case deviceModelIdentifier = "device.model.identifier"
        case hostName = "host.name"
    }

    package init(
        osName: String? = nil, osVersion: String? = nil, osBuildID: String? = nil,
        deviceManufacturer: String? = nil, deviceModelIdentifier: String? = nil, hostName: String? = nil
    ) {
        self.osName = osName
        self.osVersion = osVersion
        self.osBuildID = osBuildID
        self.deviceManufacturer = deviceManufacturer
        self.deviceModelIdentifier = deviceModelIdentifier
        self.hostName = hostName
    }

    /// The facts as Resource attributes, in this order, the absent ones left out.
    package var attributes: [Attribute] {
        let pairs: [(CodingKeys, String?)] = [
            (.osName, osName), (.osVersion, osVersion), (.osBuildID, osBuildID),
            (.deviceManufacturer, deviceManufacturer), (.deviceModelIdentifier, deviceModelIdentifier),
            (.hostName, hostName),
        ]
        return pairs.compactMap { key, value in value.map { .string(key.rawValue, $0) } }
    }
}
