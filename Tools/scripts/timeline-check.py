#!/usr/bin/python3
"""Drives a `reactorlog timeline` page in a real headless Chromium, as a user would, and checks what it shows.

    timeline-check.py PAGE --step SEQ [--expect PATH=JSON]... [--expect-diff LINE]... [--blame PATH=SEQ]...
                      [--expect-note TEXT]... [--expect-relative NS=TEXT]... [--expect-absolute NS=TEXT]...
                      [--hide KIND]... [--next N --expect-label TEXT]
                      [--play SPEED] [--screenshot FILE.png] [--report]

It opens the page from its file, waits for it to be ready, hides the entries of each KIND (action, mutation, error,
marker) with its checkbox, moves the slider with the keyboard to the entry SEQ (from whichever end is nearer), then
checks: the state tree shows each PATH with the JSON value given (numbers compared exactly, to the last digit); the
diff lists each LINE; the state pane contains each TEXT; clicking each blame PATH in the tree lists the mutation SEQ
in the blame panel; pressing the page's next button N times (which steps over hidden entries) leaves a step label
starting with the TEXT given; with --play, pressing Play at SPEED from the start steps through every shown entry in
order, none before its recorded pace allows, and stops at the last, and a key or the space bar pauses; the minimap shows the entries, an error's tick in the error colour; the page logged no
error; and the browser made no network request but the page's own file. Prints one line per failure and exits 1, or
exits 0. With --report, prints how long loading took and how long a step takes in the page (the arrow key's handler
and the layout after it, 200 steps back and forth), without the browser driver's round trips.

Needs Debian's chromium, chromium-driver and python3-selenium (Tools/scripts/setup.sh --tests installs them).
"""
import argparse
import datetime
import decimal
import json
import os
import sys
import tempfile
import time

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select, WebDriverWait
except ImportError:
    sys.exit("timeline-check: Python's selenium is missing: run Tools/scripts/setup.sh --tests "
             "(apt-get install python3-selenium chromium chromium-driver).")


def exact(text):
    """A JSON value with its numbers exact: a float would take 0.12345678901234567891 for 0.12345678901234567892."""
    return json.loads(text, parse_float=decimal.Decimal)


def browser(profile):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,900", "--user-data-dir=" + profile, "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def minimap_failures(driver):
    """The minimap's pixels: some column shows an entry, and a page with an error shows a full-height tick in the error
    colour (the position marker is full-height too, in the text colour)."""
    found = driver.execute_script("""
        const canvas = document.getElementById("minimap");
        const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
        const at = (x, y) => pixels.slice((y * canvas.width + x) * 4, (y * canvas.width + x) * 4 + 4);
        const probe = document.createElement("canvas").getContext("2d");
        probe.fillStyle = getComputedStyle(document.documentElement).getPropertyValue("--error");
        probe.fillRect(0, 0, 1, 1);
        const red = probe.getImageData(0, 0, 1, 1).data;
        let ticks = 0, errors = 0;
        for (let x = 0; x < canvas.width; x++) {
            if (at(x, canvas.height - 1)[3] > 0) ticks++;
            const top = at(x, 0);
            if (top[3] > 0 && [0, 1, 2].every((c) => Math.abs(top[c] - red[c]) < 8)) errors++;
        }
        return { ticks, errors, hasError: data.entries.some((entry) => entry.k === "error") };""")
    failures = []
    if found["ticks"] <= 2:  # the position's marker alone is two pixels wide
        failures.append("the minimap shows no entry")
    if found["hasError"] and found["errors"] == 0:
        failures.append("the minimap shows no error's tick, though the page holds an error")
    return failures


def play_failures(driver, speed, hidden):
    """Plays the page from its start at `speed` (the speed menu's value) and checks what the step label showed: every
    shown entry in order, each no sooner than the recorded times allow (a gap divided by the speed, at most a second,
    added up from the start), the button back to Play at the end; then that an arrow key and the space bar pause."""
    Select(driver.find_element(By.ID, "speed")).select_by_value(speed)
    driver.find_element(By.ID, "slider").send_keys(Keys.HOME)
    driver.execute_script("""
        const label = document.getElementById("step-label");
        window.seen = [];
        new MutationObserver(() => seen.push([performance.now(), label.textContent])).observe(label, { childList: true, characterData: true, subtree: true });
        window.started = performance.now();
        document.getElementById("play").click();""")
    button = driver.find_element(By.ID, "play")
    failures = []
    try:
        WebDriverWait(driver, 120).until(lambda d: button.get_attribute("aria-pressed") == "false")
    except Exception:
        return ["playing at %s× did not stop at the last entry within 120 s" % speed]
    started, seen, entries = driver.execute_script("return [started, seen, data.entries]")
    markers = ("opened", "resumed", "closed")
    shown = [entry for entry in entries if ("marker" if entry["k"] in markers else entry["k"]) not in hidden]
    played = [text.split(" ")[0] for _, text in seen]
    if played != ["#%d" % entry["s"] for entry in shown]:
        failures.append("playing showed %r, not every shown entry in order" % played)
    else:
        due = 0.0
        for (at, text), entry, previous in zip(seen, shown, [None] + shown):
            if previous is not None:
                due += min(max(0, int(entry["t"]) - int(previous["t"])) / 1e6 / float(speed), 1000)
            if at - started < due - 1:  # a millisecond for the clocks' rounding
                failures.append("playing at %s× showed %s after %.1f ms, before its recorded pace (%.1f ms)" % (speed, text, at - started, due))
                break
    if button.text != "Play":
        failures.append("the play button reads %r at the end, not Play" % button.text)
    slider = driver.find_element(By.ID, "slider")
    for key, name in ((Keys.ARROW_LEFT, "the left arrow"), (Keys.SPACE, "space")):
        slider.send_keys(Keys.HOME)
        button.click()
        pressed = button.get_attribute("aria-pressed")
        slider.send_keys(key)
        label = driver.find_element(By.ID, "step-label").text
        if label.startswith("#%d " % shown[-1]["s"]):
            failures.append("playing reached the end before %s was pressed: too fast to tell whether it pauses" % name)
        elif pressed != "true" or button.get_attribute("aria-pressed") != "false":
            failures.append("pressing %s while playing did not pause (before: %s, after: %s)" % (
                name, pressed, button.get_attribute("aria-pressed")))
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("page")
    parser.add_argument("--step", type=int, required=True)
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--expect-diff", action="append", default=[])
    parser.add_argument("--blame", action="append", default=[])
    parser.add_argument("--expect-note", action="append", default=[])
    parser.add_argument("--expect-rows", help="the entry list's rows, in order, as their texts read, separated by |")
    parser.add_argument("--expect-written-local", action="store_true", help="the header gives the time the page was written in local time")
    parser.add_argument("--hide", action="append", default=[], choices=["action", "mutation", "error", "marker"])
    parser.add_argument("--next", type=int, default=0)
    parser.add_argument("--expect-label")
    parser.add_argument("--expect-relative", action="append", default=[], help="NANOSECONDS=TEXT: the time since the first entry, as a row shows it")
    parser.add_argument("--expect-absolute", action="append", default=[], help="NANOSECONDS=TEXT: a time since 1970, as the entry pane shows it")
    parser.add_argument("--play", choices=["0.1", "0.5", "1", "2", "10"])
    parser.add_argument("--screenshot")
    parser.add_argument("--report", action="store_true", help="print how long loading and stepping took")
    arguments = parser.parse_args()
    url = "file://" + os.path.abspath(arguments.page)
    failures = []
    with tempfile.TemporaryDirectory() as profile:
        driver = browser(profile)
        try:
            driver.get_log("performance")  # what the browser did before the page (its new-tab page) is not the page's
            opened = time.monotonic()
            driver.get(url)
            WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body.dataset.ready === 'true'"))

            loaded = time.monotonic()
            for kind in arguments.hide:
                driver.find_element(By.ID, "show-" + kind).click()

            # Move the slider as a user does, with the keyboard: from the start (Home) or the end (End), whichever is
            # nearer, step by step until the entry is shown.
            slider = driver.find_element(By.ID, "slider")
            label = driver.find_element(By.ID, "step-label")
            # Step 0 is the page's start, before its first entry.
            first, last = driver.execute_script("return [data.range.first, data.range.last]")
            towards_end = arguments.step - first > last - arguments.step
            slider.send_keys(Keys.END if towards_end else Keys.HOME)
            started, presses = time.monotonic(), 0
            for _ in range(int(slider.get_attribute("max")) + 1):
                if label.text.startswith("#%d " % arguments.step) or arguments.step == 0 and label.text.startswith("start: "):
                    break
                slider.send_keys(Keys.ARROW_LEFT if towards_end else Keys.ARROW_RIGHT)
                presses += 1
            else:
                failures.append("the slider never reached #%d (label: %r)" % (arguments.step, label.text))
            stepped = time.monotonic()
            if arguments.report:
                print("load %.0f ms, %d key presses at %.1f ms each (through the driver)" % (
                    (loaded - opened) * 1000, presses, (stepped - started) * 1000 / max(presses, 1)))
                print("a step in the page: %.2f ms" % driver.execute_script("""
                    const press = (key) => { document.body.dispatchEvent(new KeyboardEvent("keydown", { key, bubbles: true }));
                                             return document.body.offsetHeight; };
                    const started = performance.now();
                    for (let i = 0; i < 100; i++) { press("ArrowLeft"); press("ArrowRight"); }
                    return (performance.now() - started) / 200;"""))

            for expectation in arguments.expect:
                path, _, expected = expectation.partition("=")
                found = driver.find_elements(By.CSS_SELECTOR, '#state-tree [data-path="%s"] > .value' % path)
                if not found:
                    failures.append("the state tree shows no %s" % path)
                elif exact(found[0].text) != exact(expected):
                    failures.append("the state tree shows %s = %s, expected %s" % (path, found[0].text, expected))

            diff = [line.text for line in driver.find_elements(By.CSS_SELECTOR, "#diff > div")]
            for line in arguments.expect_diff:
                if line not in diff:
                    failures.append("the diff does not show %r; it shows %r" % (line, diff))

            pane = driver.find_element(By.ID, "state-tree").text
            for note in arguments.expect_note:
                if note not in pane:
                    failures.append("the state pane does not say %r; it says %r" % (note, pane))

            failures += minimap_failures(driver)

            if arguments.expect_written_local:
                written = driver.execute_script("return data.source.generatedAt")
                local = datetime.datetime.fromisoformat(written.replace("Z", "+00:00")).astimezone().strftime("%Y-%m-%d %H:%M:%S")
                header = driver.find_element(By.ID, "source").text
                if not header.endswith(" at " + local):
                    failures.append("the header reads %r, not the local time %s it was written (%s)" % (header, local, written))

            if arguments.expect_rows is not None:
                # Rows are placed by their top, as the list scrolls; the text of each with its spaces folded.
                ordered = [" ".join(row.text.split()) for row in sorted(
                    driver.find_elements(By.CSS_SELECTOR, "#entries .row"), key=lambda row: float(row.value_of_css_property("top").rstrip("px")))]
                expected = arguments.expect_rows.split("|")
                if ordered != expected:
                    failures.append("the entry list reads %r, expected %r" % (ordered, expected))

            for expectation in arguments.expect_relative:
                nanoseconds, _, expected = expectation.partition("=")
                shown = driver.execute_script("return relativeTime({t: (t0 + BigInt(arguments[0])).toString()})", nanoseconds)
                if shown != expected:
                    failures.append("%s ns after the first entry shows as %r, expected %r" % (nanoseconds, shown, expected))

            for expectation in arguments.expect_absolute:
                nanoseconds, _, expected = expectation.partition("=")
                shown = driver.execute_script("return absoluteTime({t: arguments[0]})", nanoseconds)
                if shown != expected:
                    failures.append("%s ns since 1970 shows as %r, expected %r" % (nanoseconds, shown, expected))

            for blame in arguments.blame:
                path, _, sequence = blame.partition("=")
                keys = driver.find_elements(By.CSS_SELECTOR, '#state-tree [data-path="%s"] .key' % path)
                if not keys:
                    failures.append("the state tree has no %s to click for blame" % path)
                else:
                    keys[0].click()
                    blamed = [line.get_attribute("data-sequence") for line in driver.find_elements(By.CSS_SELECTOR, "#blame .change")]
                    if sequence not in blamed:
                        failures.append("blame of %s lists %r, not #%s" % (path, blamed, sequence))

            if arguments.next:
                for _ in range(arguments.next):
                    driver.find_element(By.ID, "next").click()
                if arguments.expect_label and not label.text.startswith(arguments.expect_label):
                    failures.append("after %d presses of next the label reads %r, not %r" % (arguments.next, label.text, arguments.expect_label))

            if arguments.play:
                failures += play_failures(driver, arguments.play, arguments.hide)

            if arguments.screenshot:
                driver.save_screenshot(arguments.screenshot)

            for entry in driver.get_log("browser"):
                if entry.get("level") == "SEVERE":
                    failures.append("the page logged an error: %s" % entry.get("message"))
            requests = []
            for entry in driver.get_log("performance"):
                message = json.loads(entry["message"])["message"]
                if message.get("method") == "Network.requestWillBeSent":
                    params = message["params"]
                    if params.get("documentURL") == url or not params["request"]["url"].startswith("chrome://"):
                        requests.append(params["request"]["url"])
            foreign = [request for request in requests if request != url and not request.startswith("data:")]
            if foreign:
                failures.append("the page made network requests: %r" % foreign)
            if url not in requests:
                failures.append("the browser's network log did not see the page itself, so it cannot vouch for it")
        finally:
            driver.quit()
    for failure in failures:
        print("timeline-check: " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
