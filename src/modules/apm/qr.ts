/**
 * QR pay-ins (docs/apm.md): the deep link a payer's app opens and a real QR code of it.
 * UPI_QR: `upi://pay?pa=sandbox@upi&pn=<merchant>&am=<amount>&cu=INR&tr=<transactionId>` (NPCI's UPI
 * linking spec). PIX_QR: an EMV "copia e cola" BR Code (Banco Central do Brasil's Pix manual:
 * EMV MPM fields, GUI br.gov.bcb.pix, CRC16/CCITT-FALSE in field 63). `qrData` is a base64 PNG
 * rendered from the `qrcode` library's module matrix, synchronously (it is made inside the
 * create's database transaction).
 *
 * LIMITATIONS:
 * - the Pix key is a fixed sandbox key; the BR Code is static-style (no payload URL).
 */
import { createRequire } from "node:module";

type QrLibs = { PNG: typeof import("pngjs").PNG; QRCode: typeof import("qrcode") };
let libs: QrLibs | undefined;
/** qrcode and pngjs load on the first QR pay-in (a fifth of the bundle a start need not parse). */
function qrLibs(): QrLibs {
  if (!libs) {
    const require = createRequire(import.meta.url);
    libs = { PNG: (require("pngjs") as typeof import("pngjs")).PNG, QRCode: require("qrcode") as typeof import("qrcode") };
  }
  return libs;
}

/** `upi://pay?...` for a UPI_QR pay-in. */
export function upiDeepLink(merchantName: string, amount: string, transactionId: string): string {
  const q = [
    "pa=sandbox@upi",
    `pn=${encodeURIComponent(merchantName)}`,
    `am=${amount}`,
    "cu=INR",
    `tr=${encodeURIComponent(transactionId)}`,
  ];
  return `upi://pay?${q.join("&")}`;
}

/** One EMV TLV field: id, two-digit length, value. */
const tlv = (id: string, value: string): string => `${id}${String(value.length).padStart(2, "0")}${value}`;

/** Letters, digits and spaces only, at most `max` characters (BR Code name and city fields). */
const plain = (s: string, max: number, fallback: string): string => {
  const out = s
    .normalize("NFD")
    .replace(/[^A-Za-z0-9 ]/g, "")
    .trim()
    .slice(0, max);
  return out || fallback;
};

/** CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF), as four upper-case hex digits (BR Code field 63). */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, "utf8")) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, "0");
}

/** The Pix "copia e cola" BR Code for a PIX_QR pay-in, ending in a valid CRC16. */
export function pixBrCode(merchantName: string, amount: string, transactionId: string): string {
  const body =
    tlv("00", "01") +
    tlv("01", "12") +
    tlv("26", tlv("00", "br.gov.bcb.pix") + tlv("01", "sandbox@pix.example")) +
    tlv("52", "0000") +
    tlv("53", "986") +
    tlv("54", amount) +
    tlv("58", "BR") +
    tlv("59", plain(merchantName, 25, "SANDBOX MERCHANT")) +
    tlv("60", "SAO PAULO") +
    tlv("62", tlv("05", plain(transactionId, 25, "***").replace(/ /g, "")));
  const withCrcId = `${body}6304`;
  return withCrcId + crc16(withCrcId);
}

const SCALE = 4;
const QUIET = 4;

/** A PNG (base64) of a QR code of `text`: black modules on white, a 4-module quiet zone. */
export function qrPngBase64(text: string): string {
  const { PNG, QRCode } = qrLibs();
  const { modules } = QRCode.create(text, { errorCorrectionLevel: "M" });
  const side = (modules.size + 2 * QUIET) * SCALE;
  const png = new PNG({ width: side, height: side });
  png.data.fill(255);
  for (let r = 0; r < modules.size; r++) {
    for (let c = 0; c < modules.size; c++) {
      if (!modules.get(r, c)) continue;
      for (let y = 0; y < SCALE; y++) {
        const row = (r + QUIET) * SCALE + y;
        const start = (row * side + (c + QUIET) * SCALE) * 4;
        for (let x = 0; x < SCALE; x++) {
          const i = start + x * 4;
          png.data[i] = 0;
          png.data[i + 1] = 0;
          png.data[i + 2] = 0;
        }
      }
    }
  }
  return PNG.sync.write(png, { colorType: 0 }).toString("base64");
}
