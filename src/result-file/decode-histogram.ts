/**
 * Decode a histogram of a result file, turning a corrupt encoding into the one-line user error
 * (exit 2) that names where it was, e.g. `base.json: histograms.byMethod["ping"].latency`.
 */
import { RpcloadError } from '../errors.ts';
import { decodeHistogram, type Histogram } from '../metrics/hdr.ts';

export function decodeHistogramAt(encoded: string, where: string): Histogram {
  try {
    return decodeHistogram(encoded);
  } catch {
    throw new RpcloadError('bad_result', `${where}: expected an HdrHistogram (compressed base64), found data that does not decode`);
  }
}
