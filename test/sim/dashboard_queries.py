#!/usr/bin/python3
"""dashboard_queries.py DASHBOARD URL: runs every query of a Grafana
dashboard (each panel's targets' `expr`, nested rows included) through a
Prometheus server's HTTP API (URL/api/v1/query) and says which return no
series. Exit 0 when every query returned at least one series, 1 naming
each one that did not (or that Prometheus refused), 2 on a usage error or
when the server cannot be reached. For the dashboard sim test
(test/sim/dashboard_sim_test.cc), which polls it until all answer; also
runnable by hand against any Prometheus that scrapes the metrics files."""
import json
import sys
import urllib.error
import urllib.parse
import urllib.request


def panels(ps):
    for p in ps:
        yield p
        yield from panels(p.get("panels", []))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    dash = json.load(open(sys.argv[1]))
    url = sys.argv[2].rstrip("/") + "/api/v1/query"
    queries = [(p.get("title", "?"), t["expr"]) for p in panels(dash.get("panels", []))
               for t in p.get("targets", []) if t.get("expr")]
    if not queries:
        print("no query in " + sys.argv[1])
        return 2
    empty = []
    for title, expr in queries:
        try:
            with urllib.request.urlopen(url + "?" + urllib.parse.urlencode({"query": expr}),
                                        timeout=10) as r:
                answer = json.load(r)
        except urllib.error.HTTPError as e:  # 400: a query Prometheus refuses
            empty.append("%s: %s: refused: %s" % (title, expr, e.read().decode(errors="replace")))
            continue
        except (urllib.error.URLError, OSError) as e:
            print("cannot reach %s: %s" % (url, e))
            return 2
        data = answer.get("data", {})
        if answer.get("status") != "success":
            empty.append("%s: %s: %s" % (title, expr, answer.get("error")))
        elif data.get("resultType") in ("vector", "matrix") and not data.get("result"):
            empty.append("%s: %s: no series" % (title, expr))
    for e in empty:
        print(e)
    print("%d of %d queries returned series" % (len(queries) - len(empty), len(queries)))
    return 1 if empty else 0


if __name__ == "__main__":
    sys.exit(main())
