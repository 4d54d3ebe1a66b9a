#!/usr/bin/env bash
# Writes a private nginx's configuration from the shipped one (packaging/examples/
# nginx-apsio-backend.conf, docs/nginx.md), so that what the tests and the demo run through is the
# documented file: only its example addresses, its listening port and its certificate paths are
# replaced, and a change to any of those lines in the example fails here instead of going untested.
#
# Usage: scripts/nginx-front-conf.sh --prefix DIR --port PORT --cert FILE --key FILE
#            --instance HOST:PORT [--instance HOST:PORT …] --collector HOST:PORT [--collector …]
# Writes DIR/apsio-backend.conf (the example, filled in) and DIR/nginx.conf, a main file that keeps
# nginx's pid, logs and temporary files in DIR and reads nothing of /etc/nginx. Start it with
#   nginx -p DIR -c DIR/nginx.conf -e DIR/error.log -g 'daemon off;'
# It listens on 127.0.0.1:PORT only.
set -euo pipefail
template="$(cd "$(dirname "$0")/.." && pwd)/packaging/examples/nginx-apsio-backend.conf"

prefix="" port="" cert="" key=""
instances=() collectors=()
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=${2:?}; shift 2 ;;
        --port) port=${2:?}; shift 2 ;;
        --cert) cert=${2:?}; shift 2 ;;
        --key) key=${2:?}; shift 2 ;;
        --instance) instances+=("${2:?}"); shift 2 ;;
        --collector) collectors+=("${2:?}"); shift 2 ;;
        *) echo "nginx-front-conf.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ -n "$prefix" ] && [ -n "$port" ] && [ -n "$cert" ] && [ -n "$key" ] && [ ${#instances[@]} -gt 0 ] \
    && [ ${#collectors[@]} -gt 0 ] || { sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
for address in "${instances[@]}" "${collectors[@]}"; do
    [[ $address =~ ^127\.0\.0\.1:[0-9]+$ ]] || { echo "nginx-front-conf.sh: $address is not on 127.0.0.1" >&2; exit 2; }
done
mkdir -p "$prefix/temp"

# Each example line is replaced by what the test or the demo runs; each must be found exactly as
# written (the awk program counts them), so that the example and this script cannot drift apart.
awk -v port="$port" -v cert="$cert" -v key="$key" \
    -v instances="${instances[*]}" -v collectors="${collectors[*]}" '
    function servers(list, suffix,    parts, n, i, out) {
        n = split(list, parts, " ")
        out = ""
        for (i = 1; i <= n; i++) out = out (i > 1 ? "\n" : "") "    server " parts[i] suffix ";"
        return out
    }
    $0 == "    listen 443 ssl http2;" { print "    listen 127.0.0.1:" port " ssl http2;"; seen["listen"]++; next }
    $0 == "    listen [::]:443 ssl http2;" { seen["listen6"]++; next }
    $0 == "    ssl_certificate /etc/nginx/tls/live.example.com.pem;" { print "    ssl_certificate " cert ";"; seen["cert"]++; next }
    $0 == "    ssl_certificate_key /etc/nginx/tls/live.example.com.key;" { print "    ssl_certificate_key " key ";"; seen["key"]++; next }
    # Each upstream of the instances lists them: the example three become the test'"'"'s, with
    # the same max_conns.
    $0 ~ /^    server 10\.0\.1\.1[0-9]:8787 max_conns=[0-9]+;$/ {
        seen["instances"]++
        if (!listing) print servers(instances, " " substr($3, 1, length($3) - 1))
        listing = 1
        next
    }
    { listing = 0 }
    $0 ~ /^    server 10\.0\.2\.2[0-9]:4318;$/ {
        if (!seen["collectors"]++) print servers(collectors, "")
        next
    }
    { print }
    END {
        if (seen["listen"] != 1 || seen["listen6"] != 1 || seen["cert"] != 1 || seen["key"] != 1 \
            || seen["instances"] != 6 || seen["collectors"] != 2) {
            print "nginx-front-conf.sh: the example no longer has the lines this script fills in" > "/dev/stderr"
            exit 1
        }
    }' "$template" >"$prefix/apsio-backend.conf"

# The parts of Debian's /etc/nginx/nginx.conf that matter here (gzip on, as Debian ships it), with
# every path in DIR: nginx's compiled-in paths are under /var/lib/nginx and /var/log/nginx.
cat >"$prefix/nginx.conf" <<CONF
pid $prefix/nginx.pid;
error_log $prefix/error.log info;
worker_processes 2;
events { worker_connections 1024; }
http {
    default_type application/octet-stream;
    gzip on;
    log_format upstreams '\$request_method \$uri \$status upstream=\$upstream_addr';
    access_log $prefix/access.log upstreams;
    client_body_temp_path $prefix/temp/body;
    proxy_temp_path $prefix/temp/proxy;
    fastcgi_temp_path $prefix/temp/fastcgi;
    uwsgi_temp_path $prefix/temp/uwsgi;
    scgi_temp_path $prefix/temp/scgi;
    include $prefix/apsio-backend.conf;
}
CONF
