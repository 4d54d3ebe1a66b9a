/// apsioctl's help texts: the overview and one per command.
enum Help {
    static let overview = """
        Usage: apsioctl [--runtime-dir DIR] [--state-dir DIR] [--config-dir DIR] [--json] COMMAND ...

        Commands:
          status [APP...]              who is watching, and what each app is doing
          watch [APP...]               stream every change and command notice until Ctrl-C
          apps                         list configured apps with their installation ids
          allow-live on|off [APP...]   allow or forbid live inspection on this machine
          consent grant|deny [APP...]  grant or withdraw consent
          data-saver on|off            hold uploads and live traffic on paid links
          reload                       re-read configuration and fetch the policy again
          version                      show the version

        Options:
          --runtime-dir DIR            where apsiod's control.sock is (default /run/apsio)
          --state-dir DIR              apsiod's state (default /var/lib/apsio)
          --config-dir DIR             apsiod's configuration (default /etc/apsio)
          --json                       print JSON lines instead of sentences
          --help                       show this help; 'apsioctl COMMAND --help' for one command
          --version                    show the version

        Exit codes: 0 done, 1 refused or failed, 2 bad command line, 3 the daemon is not running.

        """

    static func command(_ name: String) -> String? {
        switch name {
        case "status": """
            Usage: apsioctl status [APP...]

            Says, for each app (every configured app when none is named), whether your team is
            viewing it live and since when, the unit's state, whether live inspection is allowed and
            whether consent is granted, and whether Data Saver is on. Anyone may ask.
            Needs apsiod running (exit code 3 otherwise).

            """
        case "watch": """
            Usage: apsioctl watch [APP...]

            Prints the status of each app, then every change as it happens: viewing started or
            ended, a screenshot, diagnostics or a raised log level, settings. Runs until Ctrl-C.
            With --json, prints the daemon's event lines as they come. Anyone may watch.
            Needs apsiod running (exit code 3 otherwise).

            """
        case "apps": """
            Usage: apsioctl apps

            Lists each configured app with its unit, service.name, service.version, app.build_id and
            installation id; your team needs the installation id to list this machine as a tester.
            The installation ids are shown only to root and the group apsio ("hidden" otherwise).
            Without apsiod running, lists the app files of the configuration directory with the
            installation ids kept in the state directory (an app apsiod never served has none yet).

            """
        case "allow-live": """
            Usage: apsioctl allow-live on|off [APP...]

            Allows or forbids live inspection of the named apps (every configured app when none is
            named). Off until you turn it on; kept across restarts. When apsiod runs it takes effect
            at once; otherwise it is stored for its next start. Needs root or the group apsio.

            """
        case "consent": """
            Usage: apsioctl consent grant|deny [APP...]

            Grants or withdraws consent for the named apps (every configured app when none is
            named), overriding the app file's Consent=. Denied: nothing more leaves this machine for
            the app, its queue is dropped and its live channel closes. Stored like allow-live.
            Needs root or the group apsio.

            """
        case "data-saver": """
            Usage: apsioctl data-saver on|off

            Data Saver holds uploads (the queue keeps them) and sends no live traffic, for machines
            on tethered or paid links. Machine-wide; stored like allow-live. Needs root or the
            group apsio.

            """
        case "reload": """
            Usage: apsioctl reload

            Makes apsiod read its configuration again and fetch every app's policy now; prints the
            configuration's problems. Needs apsiod running and root or the group apsio.

            """
        case "version": """
            Usage: apsioctl version

            Shows apsioctl's version, and apsiod's when it runs.

            """
        default: nil
        }
    }
}
