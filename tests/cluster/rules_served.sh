# rules_served.sh - sourced by the cluster tests that run pmpi_app through
# libcollmpi.so with COLLMPI_CONFIG rules: rules_served LOG CONF checks, for
# AllReduce and AllGather, that some call of LOG (COLLMPI_DEBUG=1) went to
# collc and that every algorithm that served one is named by a rule of CONF.
rules_served() {
  local log=$1 conf=$2 coll alg used named ok=1
  for coll in allreduce allgather; do
    used=$(grep -o "MPI_${coll^} ([0-9]* B, N=[0-9]*) -> [a-z_]* (collc" "$log" | sed 's/.*-> //; s/ (collc//' | sort -u)
    named=$(awk -v c="$coll" '$1 == c { print $5 }' "$conf" | sort -u)
    [ -n "$used" ] || { echo "no MPI_${coll^} call went to collc:"; grep -i "$coll" "$log" | head; ok=0; }
    for alg in $used; do
      echo "$named" | grep -qx "$alg" || { echo "MPI_${coll^} ran $alg, which no rule names"; ok=0; }
    done
    echo "$coll: rules name $(echo $named), calls ran $(echo $used)"
  done
  ((ok))
}
