import QRCode from 'qrcode';

/** A PNG of the QR code of a ticket's confirmation code, large enough for a phone camera at arm's length. */
export function ticketCodePng(confirmationCode: string): Promise<Buffer> {
  return QRCode.toBuffer(confirmationCode, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 });
}
