/**
 * A one-sheet .xlsx workbook streamed from typed columns (ECMA-376 SpreadsheetML: a bold frozen
 * header row, column widths, string and number cells with number formats), written as XML text
 * straight from the columns and zipped by src/platform/zip.ts. The report's XLS format.
 *
 * Why not exceljs, which wrote it before (docs/performance.md): its streaming writer builds each row through
 * its generic cell model, 26 µs of CPU a row on this machine in isolation, ~55 µs in the server, so
 * a 1,000,000-row sheet took 58 s; this writer takes ~5.7 µs a row, deflate included (see
 * docs/performance.md). The other streaming writer on npm (xlsx-write-stream, last released in 2024)
 * sits on the same archiver streams as exceljs and would be one more dependency; SheetJS builds
 * the whole workbook in memory. The XML is
 * the subset exceljs wrote for this sheet, string cells as `t="str"` as it wrote them; exceljs
 * reads it back in the tests.
 *
 * LIMITATIONS:
 * - the sheet's XML must stay under 4 GiB (no ZIP64; about 7,500,000 report rows);
 * - no docProps (author, times): a workbook of the same rows is the same bytes.
 */
import { ZipWriter } from "../../platform/zip.js";

/** A column of the sheet: its header, width, and each row's cell. */
export interface SheetColumn<R> {
  header: string;
  /** Excel column width, in characters. */
  width: number;
  /** The cell's text ("" for an empty cell); a text column's cells are string cells. */
  text(r: R): string;
  /** A numeric column's cell value as XML number text, or null for an empty cell. */
  number?(r: R): string | null;
  /** Excel number format of the column (a cell may override it with cellFmt). */
  numFmt?: string;
  cellFmt?(r: R): string;
}

/**
 * Rows in, bytes out. `push` returns whatever bytes are ready (possibly none: small pieces are held
 * until there is a worthwhile chunk), `end` the rest. The bytes depend on the rows only, never on
 * how they were split into pushes.
 */
export interface Encoder<R> {
  push(rows: readonly R[]): Buffer[];
  end(): Buffer[];
}

/** Characters of sheet XML deflated as one piece (the piece boundaries depend on the rows only). */
const PIECE = 256 * 1024;

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const NS = "http://schemas.openxmlformats.org";

/** Number formats Excel has built in (ECMA-376 18.8.30); the others are declared from id 164 on. */
const BUILTIN_FMTS: Record<string, number> = { "0": 1, "0.00": 2 };
const CUSTOM_FMTS = ["0.0", "0.000", "0.0000", "0.########", "yyyy-mm-dd hh:mm:ss.000"];

const fmtId = (fmt: string): number => BUILTIN_FMTS[fmt] ?? 164 + CUSTOM_FMTS.indexOf(fmt);

/** cellXfs: 0 the default, 1 the bold header, then one per number format. */
const FORMATS = [...Object.keys(BUILTIN_FMTS), ...CUSTOM_FMTS];
const STYLE_OF = new Map(FORMATS.map((f, i) => [f, i + 2]));
const styleOf = (fmt: string | undefined): number => (fmt === undefined ? 0 : (STYLE_OF.get(fmt) ?? 0));

const STYLES = `${XML_HEAD}<styleSheet xmlns="${NS}/spreadsheetml/2006/main"><numFmts count="${CUSTOM_FMTS.length}">${CUSTOM_FMTS.map(
  (f) => `<numFmt numFmtId="${fmtId(f)}" formatCode="${f}"/>`,
).join(
  "",
)}</numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="${FORMATS.length + 2}"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>${FORMATS.map(
  (f) => `<xf numFmtId="${fmtId(f)}" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`,
).join("")}</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`;

const CONTENT_TYPES = `${XML_HEAD}<Types xmlns="${NS}/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`;

const ROOT_RELS = `${XML_HEAD}<Relationships xmlns="${NS}/package/2006/relationships"><Relationship Id="rId1" Type="${NS}/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`;

const workbook = (sheet: string) =>
  `${XML_HEAD}<workbook xmlns="${NS}/spreadsheetml/2006/main" xmlns:r="${NS}/officeDocument/2006/relationships"><sheets><sheet name="${xmlText(sheet)}" sheetId="1" r:id="rId1"/></sheets></workbook>`;

const WORKBOOK_RELS = `${XML_HEAD}<Relationships xmlns="${NS}/package/2006/relationships"><Relationship Id="rId1" Type="${NS}/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${NS}/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`;

// markup, and the characters XML 1.0 cannot hold (C0 controls but tab, LF, CR; U+FFFE, U+FFFF)
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it looks for
const INVALID = /[&<>"\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };

/** Text as XML character data: markup escaped, characters XML 1.0 cannot hold dropped. */
export function xmlText(s: string): string {
  if (!INVALID.test(s)) return s;
  let out = "";
  for (const ch of s) {
    const e = ESCAPES[ch];
    if (e) out += e;
    else if (!INVALID.test(ch)) out += ch;
  }
  return out;
}

/** Column letters A, B, ... (17 columns here; two letters would do up to 702). */
const letter = (i: number): string =>
  i < 26 ? String.fromCharCode(65 + i) : String.fromCharCode(64 + Math.floor(i / 26)) + String.fromCharCode(65 + (i % 26));

function sheetHead<R>(columns: readonly SheetColumn<R>[]): string {
  const cols = columns
    .map((c, i) => {
      const style = styleOf(c.numFmt);
      return `<col min="${i + 1}" max="${i + 1}" width="${c.width}"${style ? ` style="${style}"` : ""} customWidth="1"/>`;
    })
    .join("");
  const header = columns.map((c, i) => `<c r="${letter(i)}1" s="1" t="str"><v>${c.header}</v></c>`).join("");
  return (
    `${XML_HEAD}<worksheet xmlns="${NS}/spreadsheetml/2006/main" xmlns:r="${NS}/officeDocument/2006/relationships">` +
    '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/>' +
    '<selection pane="bottomLeft"/></sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>' +
    `<cols>${cols}</cols><sheetData><row r="1" s="1" customFormat="1">${header}</row>`
  );
}

const SHEET_TAIL =
  '</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>';

/** The workbook encoder: the fixed parts first, then the sheet streamed, then the zip's directory. */
export function xlsxEncoder<R>(columns: readonly SheetColumn<R>[], sheetName: string): Encoder<R> {
  const zip = new ZipWriter();
  const letters = columns.map((_, i) => letter(i));
  const cellStyle = columns.map((c) => styleOf(c.numFmt));
  let started = false;
  let row = 1;
  let xml = sheetHead(columns);

  const start = (): Buffer[] => {
    started = true;
    return [
      zip.file("[Content_Types].xml", CONTENT_TYPES),
      zip.file("_rels/.rels", ROOT_RELS),
      zip.file("xl/workbook.xml", workbook(sheetName)),
      zip.file("xl/_rels/workbook.xml.rels", WORKBOOK_RELS),
      zip.file("xl/styles.xml", STYLES),
      zip.entry("xl/worksheets/sheet1.xml"),
    ];
  };
  const piece = (): Buffer => {
    const out = zip.write(Buffer.from(xml, "utf8"));
    xml = "";
    return out;
  };

  const rowXml = (r: R, n: number): string => {
    let s = `<row r="${n}">`;
    for (let i = 0; i < columns.length; i++) {
      const c = columns[i] as SheetColumn<R>;
      const ref = `${letters[i]}${n}`;
      if (c.number) {
        const v = c.number(r);
        if (v === null) continue;
        const style = c.cellFmt ? styleOf(c.cellFmt(r)) : (cellStyle[i] as number);
        s += `<c r="${ref}"${style ? ` s="${style}"` : ""}><v>${v}</v></c>`;
      } else {
        const v = c.text(r);
        if (v === "") continue;
        s += `<c r="${ref}" t="str"><v>${xmlText(v)}</v></c>`;
      }
    }
    return `${s}</row>`;
  };

  return {
    push(rows) {
      const out = started ? [] : start();
      for (const r of rows) {
        row++;
        xml += rowXml(r, row);
        if (xml.length >= PIECE) out.push(piece());
      }
      return out;
    },
    end() {
      const out = started ? [] : start();
      xml += SHEET_TAIL;
      out.push(piece(), zip.close(), zip.finish());
      return out;
    },
  };
}
