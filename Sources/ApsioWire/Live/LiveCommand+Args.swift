package import ApsioCore
package import ApsioJSON
extension LiveCommand {
    /// A command as a `next` answer or a viewer's request spells it: `args` absent, null, `{}` or
    /// `[]` holds nothing, anything else holds something.
    package init(id: String, name: String, args: JSONValue?) {
        let empty: Bool = switch args {
        case nil, .null?: true
        case .object(let members)?: members.isEmpty
        case .array(let items)?: items.isEmpty
        default: false
        }
        self.init(id: id, name: name, hasArguments: !empty)
    }
}
