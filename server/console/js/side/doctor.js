// The doctor's findings in the Connections tab (issue 33): the same check-up `komasync
// doctor` prints — public URL, TLS, port, each room, each bridge's last contact and version,
// the versions served — fetched from GET /api/doctor with the GM's secret, each finding in
// the UI's language with what to do.

import { h, clear } from "../dom.js";
import { addStrings, t, pick } from "../i18n.js";

addStrings({
  ja: {
    "doctor.title": "点検",
    "doctor.run": "点検する",
    "doctor.running": "点検中…",
    "doctor.help": "公開URL・TLS・ポート・各ルーム・各ブリッジ・配布中のバージョンを、サーバーから見て点検します（`komasync doctor` と同じ）。",
    "doctor.all_ok": "問題は見つかりませんでした。",
    "doctor.needs": "対応が必要な項目があります。",
    "doctor.failed": "点検できませんでした（{why}）。",
    "doctor.level.ok": "OK", "doctor.level.warn": "注意", "doctor.level.fail": "要対応",
    "doctor.todo": "対処: {what}",
  },
  en: {
    "doctor.title": "Check-up",
    "doctor.run": "Run the check-up",
    "doctor.running": "Checking…",
    "doctor.help": "Checks the public URL, TLS, the port, each room, each bridge and the versions served, as the server sees them (the same as `komasync doctor`).",
    "doctor.all_ok": "Nothing wrong was found.",
    "doctor.needs": "Something needs your attention.",
    "doctor.failed": "The check-up could not run ({why}).",
    "doctor.level.ok": "OK", "doctor.level.warn": "note", "doctor.level.fail": "action needed",
    "doctor.todo": "What to do: {what}",
  },
});

export class Doctor {
  constructor(app) {
    this.app = app;
    this.result = null; // {ok, findings} | {error}
    this.busy = false;
    this.el = h("section.doctor");
    this.render();
  }

  async run() {
    this.busy = true;
    this.render();
    try {
      const r = await fetch("/api/doctor", { cache: "no-store", credentials: "omit",
        headers: { Authorization: `Bearer ${this.app.credentials?.secret || ""}` } });
      const body = await r.json().catch(() => null);
      this.result = r.ok && body ? body : { error: body?.reason ? pick(body.reason) : `HTTP ${r.status}` };
    } catch (e) {
      this.result = { error: String(e?.message || e) };
    }
    this.busy = false;
    this.render();
  }

  render() {
    const r = this.result;
    const findings = r?.findings || [];
    clear(this.el).append(
      h("h4", t("doctor.title")),
      h("p.muted.small", t("doctor.help")),
      h("button", { type: "button", disabled: this.busy, dataset: { act: "doctor" },
                    on: { click: () => this.run() } }, this.busy ? t("doctor.running") : t("doctor.run")),
      r?.error ? h("p.doctor-error", { role: "alert" }, t("doctor.failed", { why: r.error })) : null,
      r && !r.error ? h("p", { class: `doctor-verdict ${r.ok ? "ok" : "fail"}`, role: "status" },
        r.ok ? t("doctor.all_ok") : t("doctor.needs")) : null,
      findings.length ? h("ul.plain.doctor-findings", findings.map((f) => h("li", {
        class: `doctor-${f.level}`, dataset: { finding: f.id, level: f.level } },
        h("span", { class: `badge doctor-level-${f.level}` }, t(`doctor.level.${f.level}`)), " ",
        h("span.doctor-text", pick(f.text)),
        f.todo ? h("div.small.doctor-todo", t("doctor.todo", { what: pick(f.todo) })) : null))) : null);
  }
}
