# shellcheck shell=bash
# acmp.sh: part 3 of the demo (sourced by demo-steps.sh). ibacm with the
# acmp provider on Hca2, Hca3 and Hca4, each with a name and an IPv4 address:
# names and IPs resolve between nodes by multicast request and unicast
# answer, and every receiver of a request caches the requester.

acmp_ready() { # LABEL: the daemon joined its multicast group
	ibacm_logged "$1" 'pkey 0xffff ready (QPN' && return 0
	alive "$1" && return 1
	die "ibacm $1 exited: $(tail -n 5 "$(ibacm_dir "$1")/ibacm.log")"
}

part_acmp() {
	part "3/4  ibacm with the acmp provider on Hca2, Hca3, Hca4: names and IPs"
	local n
	for n in 2 3 4; do start_ibacm "Hca$n" acmp "node$n" "10.0.0.$n"; done
	for n in 2 3 4; do wait_until 10 "acmp on Hca$n to join its group" acmp_ready "acmp-Hca$n"; done
	step "Each daemon has a name and an IP in its address file and joined the ACM group:"
	for n in 2 3 4; do
		printf 'Hca%s (LID %s): %-16s %s\n' "$n" "$(lid_of "Hca$n")" \
			"$(cut -d' ' -f1 "$(ibacm_dir "acmp-Hca$n")/addr.cfg" | paste -sd' ')" \
			"$(ibacm_log "acmp-Hca$n" 'joined ff15' | sed 's/^acmp: endpoint ibsim0\/1 pkey 0xffff: //; s/, SL [0-9]*)/)/; s/, attached//')"
	done | indent
	step "ibsim's attach slots in use now (OpenSM + 3 daemons; the limit is 10):"
	"$simfab" attached | sed -n 's/^attach slots in use (\(.*\)):$/\1/p' | indent

	step "node2 resolves node3 by name: node2 multicasts a request, node3 answers"
	resolve acmp-Hca2 n node2 node3 | indent
	# node4 heard node2's request too, and cached node2 as it handled it.
	wait_until 10 "node4 to handle node2's request" ibacm_logged acmp-Hca4 'request from node2 for node3'
	step "node4 heard that request and cached the requester; its log:"
	ibacm_log acmp-Hca4 'request from node2 for node3' | indent
	step "node4 resolves node2: it knows node2's address from that request and asks the SA only for the route"
	resolve acmp-Hca4 n node4 node2 | indent
	step "Counters of node4's daemon (ib_acme -P col):"
	$acme -S "$(sock acmp-Hca4)" -P col | grep Count | indent
	check "node4 sent no address request (Addr Query Count 0): node2 was cached (Addr Cache Count 1)" \
		test "$(counter acmp-Hca4 'Addr Query Count')/$(counter acmp-Hca4 'Addr Cache Count')" = 0/1

	step "By IP and by name between the other nodes:"
	{
		resolve acmp-Hca3 i 10.0.0.3 10.0.0.4
		resolve acmp-Hca4 i 10.0.0.4 10.0.0.2
		resolve acmp-Hca2 i 10.0.0.2 10.0.0.3
		resolve acmp-Hca3 n node3 node2
	} | indent

	for n in 2 3 4; do stop "acmp-Hca$n"; done
	step "Stopped; what each endpoint did, from its closing log line:"
	for n in 2 3 4; do
		ibacm_log "acmp-Hca$n" 'pkey 0xffff closed' | sed "s/^acmp: endpoint ibsim0\/1 pkey 0xffff closed: /node$n: /; s/ requesters cached, .*/ requesters cached/"
	done | wrap | indent
	check "the daemons removed their sockets (client and acmp datagram sockets)" \
		test -z "$(find "$SIMFAB_DIR"/acmp-* -type s)"
}
