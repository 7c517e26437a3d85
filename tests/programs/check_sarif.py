#!/usr/bin/env python3
"""check_sarif.py FILE COUNT -- checks racepred's SARIF output.

Parses FILE as JSON and checks the subset of SARIF 2.1.0 that code
scanning needs: version and $schema, runs[0].tool.driver.name and its
rule "data-race", and for every result a ruleId, a message text, and
locations[0].physicalLocation with artifactLocation.uri and
region.startLine (an integer >= 1), related locations with a message, an
occurrenceCount >= 1 and the detector property.  The number of results
must be COUNT.  Prints one line per problem; exit status 1 if any.
Standard library only (no network, no jsonschema).
"""
import json
import sys


def check_location(loc, where, problems):
    phys = loc.get("physicalLocation")
    if not isinstance(phys, dict):
        problems.append(f"{where}: no physicalLocation")
        return
    uri = phys.get("artifactLocation", {}).get("uri")
    if not isinstance(uri, str) or not uri:
        problems.append(f"{where}: no artifactLocation.uri")
    line = phys.get("region", {}).get("startLine")
    if not isinstance(line, int) or line < 1:
        problems.append(f"{where}: no region.startLine")


def check_result(i, res, problems):
    where = f"results[{i}]"
    if res.get("ruleId") != "data-race":
        problems.append(f"{where}: ruleId is {res.get('ruleId')!r}")
    if res.get("level") != "error":
        problems.append(f"{where}: level is {res.get('level')!r}")
    text = res.get("message", {}).get("text", "")
    if not text.startswith("Data race ("):
        problems.append(f"{where}: message text {text!r}")
    locs = res.get("locations")
    if not isinstance(locs, list) or not locs:
        problems.append(f"{where}: no locations")
    else:
        check_location(locs[0], f"{where}.locations[0]", problems)
    related = res.get("relatedLocations")
    if related is None:
        # Absent only when nothing is related: the earlier location was not
        # recorded (--history-level=none) and no heap block holds the
        # address, so the access's own stack is the only one.
        if len(res.get("stacks", [])) > 1:
            problems.append(f"{where}: no relatedLocations")
    elif not isinstance(related, list) or not related:
        problems.append(f"{where}: empty relatedLocations")
    else:
        for j, loc in enumerate(related):
            if not loc.get("message", {}).get("text"):
                problems.append(f"{where}.relatedLocations[{j}]: no message")
    count = res.get("occurrenceCount")
    if not isinstance(count, int) or count < 1:
        problems.append(f"{where}: occurrenceCount {count!r}")
    if not res.get("properties", {}).get("detector"):
        problems.append(f"{where}: no detector property")
    props = res.get("properties", {})
    status = props.get("status")
    if status not in ("observed", "predicted", "predicted, unconfirmed"):
        problems.append(f"{where}: status property {status!r}")
    elif f"({props.get('detector')}, {status})" not in text:
        problems.append(f"{where}: message does not say the status {status!r}")
    for key in ("access", "previousAccess"):
        held = props.get(key, {}).get("locksHeld", "missing")
        if held is not None and not (isinstance(held, list) and
                                     all(isinstance(h, str) and h.startswith("0x")
                                         for h in held)):
            problems.append(f"{where}: {key}.locksHeld {held!r}")
    for j, st in enumerate(res.get("stacks", [])):
        if not st.get("frames"):
            problems.append(f"{where}.stacks[{j}]: no frames")


def check(doc, expected, problems):
    if doc.get("version") != "2.1.0":
        problems.append(f"version is {doc.get('version')!r}")
    if "sarif" not in doc.get("$schema", ""):
        problems.append("no SARIF $schema")
    runs = doc.get("runs")
    if not isinstance(runs, list) or len(runs) != 1:
        problems.append("runs is not a list of one run")
        return
    driver = runs[0].get("tool", {}).get("driver", {})
    if driver.get("name") != "racepred":
        problems.append(f"tool.driver.name is {driver.get('name')!r}")
    rules = driver.get("rules", [])
    if not any(r.get("id") == "data-race" and r.get("help", {}).get("text")
               for r in rules):
        problems.append("no data-race rule with a help text")
    results = runs[0].get("results")
    if not isinstance(results, list):
        problems.append("no results list")
        return
    if len(results) != expected:
        problems.append(f"{len(results)} results, expected {expected}")
    for i, res in enumerate(results):
        check_result(i, res, problems)


def main():
    if len(sys.argv) != 3:
        print("usage: check_sarif.py FILE COUNT", file=sys.stderr)
        return 2
    problems = []
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{sys.argv[1]}: {e}")
        return 1
    check(doc, int(sys.argv[2]), problems)
    for p in problems:
        print(f"{sys.argv[1]}: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
