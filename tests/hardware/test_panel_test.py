"""``dudo panel-test``: the builder's wiring check, run here on mock pins."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from companion.cli import main
from hardware.panel_test import PanelTest
from hardware.pins import default_pin_map, example_pin_map_path


@pytest.mark.parametrize(
    "config", [None, str(example_pin_map_path())], ids=["default panel", "example map"]
)
def test_panel_test_prints_the_map_lights_each_led_beeps_and_names_each_button(
    capsys: pytest.CaptureFixture[str], config: str | None
) -> None:
    argv = ["panel-test", "--mock"] + ([] if config is None else ["--config", config])
    assert main(argv) == 0
    out = capsys.readouterr().out
    pins = default_pin_map() if config is None else None
    assert "name          BCM     header  wiring" in out
    for line in ["  light (GPIO21) on", "  palifico", "  won"]:
        assert line in out
    if pins is not None:
        for spec in pins.buttons:
            assert f"  pressed {spec.name} (GPIO{spec.pin})" in out
        assert "  dial turned clockwise" in out and "  dial turned counter-clockwise" in out
        assert out.rstrip().endswith("all 12 inputs answered")
    else:
        assert "  pressed qty_up (GPIO27)" in out and "  pressed pass (GPIO19)" in out
        assert out.rstrip().endswith("all 13 inputs answered")


@pytest.mark.parametrize(
    "text, reason",
    [
        ("[pins]\ndudo = 5\ncalza = 5\n",
         "pin map {config}: BCM pin 5 is used twice, by 'dudo' and by 'calza'"),
        # Before session 89, [gpio] was passed over and the default panel's wiring checked
        # ("all 12 inputs answered"), for a config the table then refused to start with.
        ("[gpio]\ndudo = 5\n", "{config}: unknown table(s) gpio (known: server, table, pins,"
                               " vision, camera, seats, colours)"),
    ],
    ids=["a pin used twice", "a pins table misnamed"],
)
def test_panel_test_stops_on_a_bad_pin_map_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    config = tmp_path / "table.toml"
    config.write_text(text)
    assert main(["panel-test", "--mock", "--config", str(config)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == f"dudo panel-test: {reason.format(config=config)}\n"


def test_a_button_on_the_hat_id_pins_is_noted_and_still_tested(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "table.toml"
    config.write_text("[pins]\ndudo = 0\ncalza = 1\nundo = 5\n")
    assert main(["panel-test", "--mock", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert ("note: dudo is on GPIO 0 (ID_SD/ID_SC), which a HAT's ID EEPROM uses at boot:"
            " with a HAT on the header, move it") in out
    assert "note: calza is on GPIO 1" in out and "note: undo" not in out
    assert "  pressed dudo (GPIO0)" in out


class _BusyPin(MockPWMPin):
    """A pin another program holds, as lgpio refuses it: a plain Exception, no GPIO error."""

    def __init__(self, factory: MockFactory, info: Any) -> None:
        raise type("error", (Exception,), {})("'GPIO busy'")


def test_a_pin_the_running_table_holds_is_named_with_what_to_do(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(Device, "pin_factory", MockFactory(pin_class=_BusyPin))
    assert main(["panel-test"]) == 1
    err = capsys.readouterr().err
    assert err == ("dudo panel-test: cannot open the GPIO pins: buzzer (GPIO18): 'GPIO busy':"
                   " is the table"
                   " running? Stop it first (sudo systemctl stop dudo-companion)\n")


def test_an_output_that_cannot_start_is_named_and_the_rest_is_still_checked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Mock pins without PWM: the tonal buzzer cannot start, the rest can.
    monkeypatch.setattr(Device, "pin_factory", MockFactory())
    monkeypatch.setattr("hardware.panel_test.mock_pin_factory", MockFactory)
    assert main(["panel-test", "--mock"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "dudo panel-test: cannot open buzzer (GPIO18): PinPWMUnsupported\n"
    assert "  light (GPIO21) on" in captured.out
    assert "the buzzer could not be set up" in captured.out
    assert captured.out.rstrip().endswith("all 12 inputs answered")


def test_on_a_pi_the_buttons_that_never_answered_are_named_and_the_run_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before, a run on the Pi ended with status 0 whatever answered: a dead button (a switch
    # wired to 3.3 V with the default pull-up), the likeliest mistake, went unsaid.
    factory = MockFactory(pin_class=MockPWMPin)
    monkeypatch.setattr(Device, "pin_factory", factory)
    pins = default_pin_map()

    def builder(self: Any) -> None:
        """The builder presses DUDO and seat 1, then Ctrl-C."""
        for name in ("dudo", "seat1"):
            pin = factory.pin(pins[name].pin)
            pin.drive_low()
            pin.drive_high()
        raise KeyboardInterrupt

    monkeypatch.setattr("hardware.panel_test.PanelTest.until_stopped", builder)
    said = io.StringIO()
    try:  # as `dudo panel-test` runs it, its lights and beeps quicker
        assert PanelTest(pins, mock=False, out=said, led_s=0.001, tick_s=0.001).run() == 1
    finally:
        factory.reset()
    assert capsys.readouterr().err == ""
    out = said.getvalue()
    assert "\n2 inputs answered: dudo, seat1\n" in out
    missing = [spec.name for spec in pins.buttons if spec.name not in ("dudo", "seat1")]
    assert out.rstrip().endswith(
        f"no answer from: {', '.join(missing)}, dial turned (check each one's wires; a button"
        " to GND needs pull_up = true, the default, one to 3.3 V pull_up = false)")
