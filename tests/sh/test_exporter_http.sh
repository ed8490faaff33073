#!/usr/bin/env bash
# nfb-pcie-telemetry-exporter over HTTP: the landing page links to the
# metrics, other paths 404, other methods 405 with Allow, a request body
# 413, an oversized header 431 and URL 414, HEAD without a body; the
# connection stays open between scrapes; stalled clients neither block a
# scrape nor keep their slot past the timeout; nothing sent over HTTP
# changes the card; a device that fails is up 0 and retried until it
# comes back; SIGINT and SIGTERM end it with status 0; a bad command line
# is one line and status 2, a port in use one line and status 1.
#
# Usage: test_exporter_http.sh BIN_DIR TESTS_DIR
. "$(dirname "$0")/exporter_lib.sh" "$@"
code() { curl -s -o "$work/body" -D "$work/head" -w '%{http_code}' "$@"; }

start_exporter ex -d "image:$cases/basic_t1.regs" --web.connection-timeout=4s --web.max-connections=8 ||
	{ bad "exporter did not start: $(cat "$work/ex.log")"; exit 1; }
u=$ex_url
[ "$(code "$u/")" = 200 ] && grep -q '<a href="/metrics">' "$work/body" && ok || bad "landing page"
grep -qi '^Content-Type: text/html' "$work/head" && ok || bad "landing page type"
[ "$(code "$u/metrics")" = 200 ] && grep -q '^pcie_telemetry_up{device=' "$work/body" && ok || bad "GET /metrics"
grep -qi '^Content-Type: text/plain; version=0.0.4' "$work/head" && ok || bad "text content type"
len=$(sed -n 's/^Content-Length: *\([0-9]*\).*/\1/ip' "$work/head")
[ "$(curl -s -I -o "$work/head" -w '%{http_code} %{size_download}' "$u/metrics")" = "200 0" ] && ok ||
	bad "HEAD: not 200 without a body"
# (the scrape duration's digits vary from scrape to scrape)
hlen=$(sed -n 's/^Content-Length: *\([0-9]*\).*/\1/ip' "$work/head")
[ -n "$hlen" ] && [ $((hlen - len)) -le 30 ] && [ $((len - hlen)) -le 30 ] && ok ||
	bad "HEAD Content-Length ${hlen:-none} is not GET's ($len)"
for p in /nope /metrics/ /metricsx //metrics /index.html; do
	[ "$(code "$u$p")" = 404 ] && ok || bad "GET $p: not 404"
done
[ "$(code "$u/metrics?x=1")" = 200 ] && ok || bad "a query string is not ignored"
for m in POST PUT DELETE PATCH OPTIONS TRACE; do
	[ "$(code -X $m "$u/metrics")" = 405 ] && grep -qi '^Allow: GET, HEAD' "$work/head" && ok ||
		bad "$m /metrics: not 405 with Allow"
done
[ "$(code -X POST --data-binary @/dev/null "$u/")" = 405 ] && ok || bad "POST /: not 405"
[ "$(code -X GET -d hello "$u/metrics")" = 413 ] && ok || bad "GET with a body: not 413"
big=$(head -c 20000 /dev/zero | tr '\0' a)
[ "$(code -H "X-Big: $big" "$u/metrics")" = 431 ] && ok || bad "20 kB header: not 431"
[ "$(code "$u/$big")" = 414 ] && ok || bad "20 kB URL: not 414"
# two scrapes on one connection
curl -sv "$u/metrics" "$u/metrics" -o /dev/null -o /dev/null 2>"$work/v"
grep -q 'Re-using existing connection' "$work/v" && ok || bad "keep-alive: the connection was not reused"

# stalled clients (half a request line each) do not block a scrape: a
# server that waited for them would answer only after their timeout (4 s)
for i in 1 2 3; do
	exec {fd}<>"/dev/tcp/127.0.0.1/${u##*:}"
	printf 'GET /metr' >&$fd
	eval "stalled$i=$fd"
done
[ "$(code --max-time 3 "$u/metrics")" = 200 ] && ok || bad "a scrape was blocked by stalled clients"
# ... and they are closed after the timeout: the read sees the end
timeout 10 cat <&$stalled1 >"$work/stalled" && ok || bad "a stalled connection was not closed within 10 s"
exec {stalled1}<&- {stalled2}<&- {stalled3}<&-
# with every slot for one client address taken, the next one is refused at once
for i in 1 2 3 4; do
	exec {fd}<>"/dev/tcp/127.0.0.1/${u##*:}"
	eval "full$i=$fd"
done
# (a loaded machine may take a while to account for the four)
refused=
for try in $(seq 1 20); do
	[ "$(code --max-time 3 "$u/metrics")" = 000 ] && { refused=1; break; }
	sleep 0.25
done
[ -n "$refused" ] && ok || bad "more connections than the limit per address"
sleep 5 # the timeout frees them
[ "$(code --max-time 3 "$u/metrics")" = 200 ] && ok || bad "slots not freed after the timeout"
exec {full1}<&- {full2}<&- {full3}<&- {full4}<&-
# an image that ran out of snapshots keeps its last values, up
sleep 1
curl -s "$u/metrics" >"$work/m"
[ "$(sample "$work/m" pcie_telemetry_up)" = 1 ] && [ "$(sample "$work/m" pcie_telemetry_polls_total)" = 2 ] &&
	grep -q 'no snapshot left in the image after 2 polls' "$work/ex.log" && ok || bad "image after its last snapshot"
kill -INT "$ex_pid"
wait "$ex_pid" && ok || bad "SIGINT: exit status $?"

# nothing over HTTP reaches the card: a component file, one poll an hour
mkdev "$work/dev.bin" 0
start_exporter ex2 -d "mmap:$work/dev.bin,rw" --poll.interval=1h --web.telemetry-path=/x/metrics ||
	bad "mmap exporter did not start: $(cat "$work/ex2.log")"
for ((i = 0; i < 50; i++)); do
	curl -s "$ex2_url/x/metrics" | grep -q '^pcie_telemetry_polls_total{.*} 1' && break
	sleep 0.1
done
sum=$(md5sum <"$work/dev.bin")
for m in POST PUT DELETE PATCH; do
	for p in /x/metrics / /metrics "/x/metrics?clear=1"; do
		curl -s -X $m -d 'command=14' "$ex2_url$p" >/dev/null
	done
done
curl -s "$ex2_url/x/metrics?clear=1&reset=1" >/dev/null
[ "$(md5sum <"$work/dev.bin")" = "$sum" ] && ok || bad "an HTTP request changed the card's registers"
[ "$(code "$ex2_url/metrics")" = 404 ] && [ "$(code "$ex2_url/x/metrics")" = 200 ] && ok ||
	bad "--web.telemetry-path"
grep -q '<a href="/x/metrics">' <(curl -s "$ex2_url/") && ok || bad "the landing page links to another path"
stop_exporter ex2 && ok || bad "SIGTERM: exit status $?"

# a device that fails: up 0, retried, up again once it is there
start_exporter ex3 -d "mmap:$work/late.bin,rw" -d "image:$cases/basic_t1.regs" ||
	bad "exporter with a missing device did not start: $(cat "$work/ex3.log")"
sleep 0.5
curl -s "$ex3_url/metrics" >"$work/m"
[ "$(sample "$work/m" pcie_telemetry_up "device=\"mmap:$work/late.bin,rw\"")" = 0 ] && ok || bad "missing device not up 0"
[ "$(sample "$work/m" pcie_telemetry_up "device=\"image:")" = 1 ] && ok || bad "the other device suffers"
grep -q "pcie_telemetry_bus_words_total{device=\"mmap:" "$work/m" && bad "counters of a device that is down" || ok
grep -q "mmap:$work/late.bin,rw: down: " "$work/ex3.log" && ok || bad "no log line for the failing device"
mkdev "$work/late.bin" 0
for ((i = 0; i < 60; i++)); do
	curl -s "$ex3_url/metrics" >"$work/m"
	[ "$(sample "$work/m" pcie_telemetry_up "device=\"mmap:")" = 1 ] && break
	sleep 0.2
done
[ "$(sample "$work/m" pcie_telemetry_up "device=\"mmap:")" = 1 ] && ok || bad "device not up after it appeared"
[ "$(sample "$work/m" pcie_telemetry_poll_errors_total "device=\"mmap:")" -ge 1 ] && ok || bad "poll errors not counted"
grep -q "mmap:$work/late.bin,rw: up again" "$work/ex3.log" && ok || bad "no log line for the device back"
# the same port again: one line, status 1
"$exporter" --web.listen-address="${ex3_url#http://}" -d "image:$cases/basic_t1.regs" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$work/err")" -eq 1 ] && grep -q 'cannot listen: Address already in use' "$work/err" &&
	ok || bad "port in use: rc $rc, $(cat "$work/err")"
stop_exporter ex3 && ok || bad "SIGTERM: exit status $?"

# the command line: help, version, and one line with status 2 for each error
"$exporter" --help >"$work/out" && grep -q -- '--web.listen-address=ADDRESS' "$work/out" && ok || bad "--help"
"$exporter" -V | grep -q '^nfb-pcie-telemetry-exporter [0-9]' && ok || bad "-V"
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	"$exporter" $args >"$work/out" 2>"$work/err"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$work/out" ] && [ "$(wc -l <"$work/err")" -eq 1 ] &&
		grep -qF -- "$want" "$work/err"; then ok; else bad "'$args': rc $rc, $(cat "$work/err")"; fi
done <<'EOT'
--bogus|unknown option '--bogus'
--web.listen=1|unknown option '--web.listen'
-x|unknown option '-x'
--help=1|option '--help' takes no value
-d|option '-d' needs a value
--web.listen-address|option '--web.listen-address' needs a value
--web.listen-address=9100|--web.listen-address '9100': expected HOST:PORT
--web.listen-address=::1:80|an IPv6 address goes in brackets
--web.listen-address=[::1]:99999|the port must be a number from 0 to 65535
--web.listen-address=[zz]:80|not an IPv6 address
--web.telemetry-path=metrics|--web.telemetry-path 'metrics': must start with '/'
--web.telemetry-path=/|--web.telemetry-path '/'
--web.max-connections=2|--web.max-connections '2'
--web.connection-timeout=0|--web.connection-timeout '0'
--poll.interval=1ms|--poll.interval '1ms': expected a duration from 10ms to 1h
--poll.interval=fast|--poll.interval 'fast'
-i x|-i 'x': not a valid index
-i 70000|-i '70000': index out of range
-d sim -i 1 -i 2|-i '2': a second -i for sim
-d sim -d sim|-d 'sim': given twice
-d|option '-d' needs a value
-d sim extra|stray argument 'extra'
EOT
finish
