# kiln publish (issue 29.5) on a real history: the toy VM of lib-history.sh
# in a git repository made here (a +10% steady-state commit, a 2x warm-up
# commit, a broken build, same-binary commits), three more commits (+18% at
# one whose subject is hostile HTML, then two of README only), measured by
# kiln track on a machine with a hostile name; a key renamed in the history
# to hostile HTML (a crafted file).  The site is looked at in headless
# Chromium through the DevTools protocol (tests/helpers/cdp.py): no console
# message, exception or blocked resource on any page; nothing the data
# could inject is in the DOM; the changes are listed on their commits with
# the A/A false-alarm rate of their series; a click on the overview opens
# the key page, a click on a chart's point selects that commit's row, the
# mouse over a chart names the commit under it; a per-commit report opens
# with its plots; with JavaScript off the overview and the key page still
# show the changes and every commit.  Then what publish refuses.
source "$KILN_ROOT/tests/lib.sh"
source "$KILN_ROOT/tests/lib-history.sh"
command -v git >/dev/null || skip "git not installed"
command -v python3 >/dev/null || skip "python3 not installed"
python3 -c "import sys; sys.path.insert(0, '$KILN_ROOT/tests/helpers'); import cdp; sys.exit(0 if cdp.chromium() else 1)" ||
	skip "chromium not installed"
cd "$T"
set +u # lib-history.sh reads an optional $3 (told its owners)
make_history_repo repo
history_vm_source 2600 10 "" > repo/vm.c
set -u
EVIL='</script><script>alert(1)</script><img src=x onerror=alert(2) id="inj"><!-- & "q" '"'s'"
GIT_COMMITTER_DATE=2026-01-09T12:00:00Z git -C repo commit -qam "$EVIL"
C8=$(git -C repo rev-parse HEAD)
for n in 9 10; do
	echo "note $n" >> repo/README
	GIT_COMMITTER_DATE=2026-01-10T12:0$n:00Z GIT_AUTHOR_NAME='Eve "&amp;" O'"'"'Hara' git -C repo commit -qam "README $n"
done
make_history_config h.yaml 5
MACHINE='m<i id="minj">&"'
"$KILN" track h.yaml --repo "$T/repo" -o h.db --machine "$MACHINE" -q "$HIST_C0~0" >/dev/null 2>err ||
	fail "kiln track (the first commit): $(cat err)"
"$KILN" track h.yaml --repo "$T/repo" -o h.db --machine "$MACHINE" -q "$HIST_C0..HEAD" >/dev/null 2>err ||
	fail "kiln track: $(cat err)"
# a key with a hostile name: what a crafted or merged history can hold
sqlite3 h.db "UPDATE keys SET bench = '</script><b id=\"kinj\">b</b>' || bench WHERE bench = 'b'"

"$KILN" publish h.db -o site --reports all --plots 1 --json >pub.json 2>err || fail "kiln publish: $(cat err)"
assert_eq "$(jq -r .keys pub.json)" 1 "keys published"
assert_eq "$(jq -r .commits pub.json)" 11 "commits"
assert_eq "$(jq -r .reports pub.json)" 10 "per-commit reports (the broken build has none)"
[ "$(jq -r .changes pub.json)" -ge 3 ] || fail "changes: $(cat pub.json)"
[ -s site/index.html ] && [ -s site/kiln.js ] && [ -s site/kiln.css ] || fail "the site's files: $(ls site)"
page=$(ls site/k/*.html)
[ "$(echo "$page" | wc -l)" -eq 1 ] || fail "one key page: $page"
# nothing from elsewhere, no inline script or handler, the hostile text never raw
grep -qiE '(src|href)="?(https?:|//)' site/index.html "$page" && fail "a page loads something from outside"
grep -qE '<script>|<img |<b id=|<i id=|<!--' site/index.html "$page" && fail "hostile text raw in a page"
[ "$(grep -c '<script' "$page")" -eq 2 ] || fail "the key page: kiln.js and its JSON only"

export T HIST_C0 HIST_C1 HIST_C2 HIST_C4 HIST_C5 C8 page
python3 - <<'PY' || fail "the site in Chromium"
import json, os, re, sys
sys.path.insert(0, os.environ["KILN_ROOT"] + "/tests/helpers")
from cdp import Browser

T, page = os.environ["T"], os.environ["page"]
site = "file://%s/site/" % T
c = {n: os.environ[n][:12] for n in ("HIST_C0", "HIST_C1", "HIST_C2", "HIST_C4", "HIST_C5", "C8")}
injected = "document.querySelectorAll('#inj, #kinj, #minj').length"
def check(ok, what):
    if not ok:
        sys.exit("FAIL: " + what)
# an 1100-pixel window shows the whole width, and a change's subject readably
# (before 2026-12-05 the overview here was 1138 pixels wide, a subject 85)
fits = "[document.documentElement.scrollWidth, " \
       "Math.min(...[...document.querySelectorAll('table.changes td.subj')].map(e => e.clientWidth))]"
def check_fits(where):
    b.cmd("Emulation.setDeviceMetricsOverride", {"width": 1100, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    width, subj = b.eval(fits)
    b.cmd("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})
    check(width <= 1100, "%s is %d pixels wide in a window of 1100" % (where, width))
    check(subj >= 150, "%s: a change's subject gets %d pixels" % (where, subj))

with Browser(T + "/chr") as b:
    # the overview: the three changes on their commits, the A/A rate beside each
    b.open(site + "index.html")
    rows = b.eval("[...document.querySelectorAll('#changes tbody tr')].map(r => r.innerText)")
    check(len(rows) >= 3, "changes listed: %r" % rows)
    text = "\n".join(rows)
    for h, what in ((c["HIST_C2"], r"steady \+(9\.[5-9]|10\.[0-4])%"), (c["HIST_C4"], r"warm-up \u00d7(1\.9|2\.0)"),
                    (c["HIST_C4"], r"warm-up cost \u00d7(1\.9|2\.0)"),
                    (c["C8"], r"steady \+1[78]\.\d%")):
        check(any(h[:10] in r and re.search(what, r) for r in rows), "no '%s' change at %s: %r" % (what, h, rows))
    check(all(" of " in r for r in rows), "an alarm without its A/A false-alarm rate: %r" % rows)
    body = b.eval("document.body.innerText")
    check("</script><script>alert(1)</script>" in body, "the hostile subject is not shown as text")
    check('m<i id="minj">&"' in body, "the hostile machine name is not shown as text")
    check(b.eval(injected) == 0, "elements injected into the overview")
    check(b.eval("document.querySelectorAll('.js-only:not([hidden])').length") == 1, "the script did not run")
    check_fits("the overview")
    b.screenshot(T + "/overview.png")
    # a click on the matrix opens the key page
    b.click("td.cell a", navigates=True)
    check(b.eval("location.pathname").endswith(page.split("/")[-1]), "the cell did not open the key page")
    check(b.eval("document.querySelector('svg#steady').getAttribute('data-n')") == "11", "points on the chart")
    check(b.eval("document.querySelectorAll('#commits tbody tr').length") == 11, "rows of commits")
    check_fits("the key page")
    check("build failed" in b.eval("document.getElementById('c-%s').innerText" % c["HIST_C5"]), "the broken build")
    check(b.eval(injected) == 0, "elements injected into the key page")
    check('</b>' in b.eval("document.querySelector('h1').innerText"), "the hostile key is not shown as text")
    aa = b.eval("document.querySelector('p.aa').innerText")
    check("same-binary pair" in aa, "the A/A rate of the series: %r" % aa)
    # what the series could have shown (11 commits: too few to inject at; e2e 93g has the figures)
    cs = b.eval("document.querySelector('p.could-see').innerText")
    check(cs.startswith("Could see: too few commits to say"), "what the series could have shown: %r" % cs)
    # the mouse over the steady chart names the commit under it (the script's cursor)
    x, y = b.eval("(() => { const c = document.querySelector('svg#steady circle'); c.scrollIntoView({block: 'center'});"
                  " const r = c.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    b.mouse("mouseMoved", x, y)
    b.pump(0.2)
    check(c["HIST_C0"][:10] in b.eval("document.getElementById('cursor').innerText"), "the cursor does not name c0")
    # a click on a point selects its commit's row (a link: works without the script too)
    b.click_at(x, y)
    check(b.eval("location.hash") == "#c-" + c["HIST_C0"], "the click on c0's point: %s" % b.eval("location.hash"))
    check(b.eval("document.querySelector('tr:target').id") == "c-" + c["HIST_C0"], "c0's row is not the target")
    b.key("ArrowRight")
    check(c["HIST_C1"][:10] in b.eval("document.getElementById('cursor').innerText"), "the arrow key did not move on")
    b.screenshot(T + "/key.png")
    # the report of the commit after the +18% change
    b.click("#ch-%s a.report" % b.eval("[...document.querySelectorAll('#changes tbody tr')].findIndex("
                                       "r => r.innerText.includes('+18'))"), navigates=True)
    check("/r/" in b.eval("location.pathname"), "the report link did not open a report")
    check(b.eval("document.querySelectorAll('.plot svg').length") >= 1, "the report has no plot")
    check(b.eval(injected) == 0, "elements injected into the report")
    check(not b.errors, "console: %s" % "\n".join(b.errors))

    # JavaScript off: the essentials are there all the same
    b.open(site + "index.html", scripts=False)
    check(b.eval("document.querySelectorAll('#changes tbody tr').length") == len(rows), "no-JS overview: changes")
    check(b.eval("document.querySelectorAll('td.cell svg.spark').length") == 1, "no-JS overview: sparkline")
    check(b.eval("document.querySelector('.js-only').hidden"), "no-JS: the script's controls are hidden")
    b.open(site + page.split("site/")[-1], scripts=False)
    check(b.eval("document.querySelectorAll('#commits tbody tr').length") == 11, "no-JS key page: commits")
    check(b.eval("document.querySelectorAll('#changes tbody tr').length") >= 3, "no-JS key page: changes")
    check(b.eval("document.querySelectorAll('svg.chart').length") == 3, "no-JS key page: charts")
    check(not b.errors, "console: %s" % "\n".join(b.errors))
PY
stat=$(python3 "$KILN_ROOT/tests/helpers/pngstat.py" key.png) || fail "the key page's screenshot"
python3 -c 'import json, sys; s = json.loads(sys.argv[1]); assert s["colours"] >= 8 and s["ink"] > 0.03, s' "$stat" ||
	fail "the key page looks blank: $stat"

# published again into the same folder: replaced whole
"$KILN" publish h.db -o site --reports none -q >/dev/null || fail "publish again"
assert_eq "$(ls site/r | wc -l)" 0 "reports of the old site left"
# what publish refuses: a folder it did not write, a results file, an unknown machine or key
mkdir mine && echo precious > mine/notes.txt
"$KILN" publish h.db -o mine >/dev/null 2>err; assert_eq $? 2 "a folder kiln did not write"
assert_eq "$(cat mine/notes.txt)" precious "the folder kiln did not write"
echo x > plain.db
"$KILN" publish plain.db -o s2 >/dev/null 2>err; assert_eq $? 5 "not a history"
"$KILN" publish h.db -o s3 --machine nosuch >/dev/null 2>err; assert_eq $? 2 "unknown machine"
"$KILN" publish h.db -o s3 --key nosuch >/dev/null 2>err; assert_eq $? 2 "no key matches"
[ -e s2 ] || [ -e s3 ] && fail "a refused publish left a folder"
ls -d site.kiln-* 2>/dev/null && fail "scratch folders left beside the site"
exit 0
