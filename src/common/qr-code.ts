import QRCode from 'qrcode';

/**
 * pngjs's options, which qrcode hands on (its types name only the deflate ones): PNG's Up filter, since a QR
 * code's rows repeat `scale` times and each repeat deflates to nothing. pngjs's default tries every filter
 * on every row, which takes three times as long for the same picture.
 */
const PNG_OPTIONS = { deflateLevel: 9, filterType: 2 };

/**
 * A PNG of the QR code of a ticket's admission code (its confirmation code), large enough for a phone camera
 * at arm's length: what GET /tickets/{ticketId}/qr answers and what the tickets mail shows.
 */
export function admissionCodePng(admissionCode: string): Promise<Buffer> {
  return QRCode.toBuffer(admissionCode, {
    type: 'png',
    errorCorrectionLevel: 'M',
    margin: 4,
    scale: 8,
    rendererOpts: PNG_OPTIONS,
  });
}
