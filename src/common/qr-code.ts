import QRCode from 'qrcode';

/**
 * A PNG of the QR code of a ticket's admission code (its confirmation code), large enough for a phone camera
 * at arm's length: what GET /tickets/{ticketId}/qr answers and what the tickets mail shows.
 */
export function admissionCodePng(admissionCode: string): Promise<Buffer> {
  return QRCode.toBuffer(admissionCode, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 });
}
