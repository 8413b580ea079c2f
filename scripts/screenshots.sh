#!/usr/bin/env bash
# Refresh the screenshots README.md and docs/console.md embed, on purpose: exactly the browser
# tests that take them, writing into docs/screenshots instead of the ignored test-artifacts/
# folder the normal test run uses.
#   console-ja/en.png, player-ja/en.png      the tower defense console and player page (1024×768)
#   session-<subsystem>-<console|player>-<lang>.png   every demo room after a short session (1440×900)
#   replay-players-ja.png, replay-gm-en.png  a replay page from the console's export (1440 wide)
#   editor-ja/en.png, editor-problems-ja.png, editor-preview-ja.png, editor-area-ja.png
#                                            the scenario editor (1440×900)
set -euo pipefail
cd "$(dirname "$0")/.."
KOMASYNC_SCREENSHOTS="$PWD/docs/screenshots" python3 -m pytest -q -p no:cacheprovider \
  tests/console/test_console.py::test_language_switch_and_screenshots \
  tests/console/test_player.py::test_player_places_attacks_and_sees_refusals \
  tests/console/test_screenshots.py tests/console/test_replay_page.py \
  tests/console/test_editor.py::test_the_editor_fits_every_width_and_names_every_control \
  tests/console/test_editor.py::test_live_check_marks_the_field_the_piece_and_the_list_in_ja_and_en \
  tests/console/test_editor.py::test_player_view_hides_the_waves_and_marks_hidden_pieces \
  tests/console/test_editor.py::test_an_area_is_drawn_by_clicking_and_dragging_squares "$@"
