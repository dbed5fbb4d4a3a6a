# Sourced by ci/consumer-gate.sh and ci/consumer-summary.sh: where a team's
# gate of one label keeps its things, so that the summary reads what the
# gate wrote.
#   consumer_layout LABEL PROJECT_DIR
# sets preset (kernelgate's cpu or gpu preset for the label), prefix (that
# build's install), build (the project's build folder for the label) and
# reports (the reports its tests write); an unknown label exits 2.
consumer_layout() {
  case "$1" in
    cpu) preset=cpu ;;
    h100|h200) preset=gpu ;;
    *) echo "$(basename "$0"): unknown label '$1' (cpu, h100 or h200)" >&2; exit 2 ;;
  esac
  prefix=$kernelgate/build/prefix-$preset
  build=$2/build/kernelgate-$1
  reports=$build/kernelgate-reports
}
