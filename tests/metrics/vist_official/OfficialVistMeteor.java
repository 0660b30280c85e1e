// The METEOR part of the official VIST challenge evaluator (EvalVISTSharedTask.main in the
// VIST-Challenge-NAACL-2018 repository), driving the METEOR 1.5 Java API the same way:
// a default MeteorConfiguration with the "hter" task (no language, no normalization set),
// getMeteorStats(submitted story, human story).score for every human story of a photo sequence,
// the maximum per sequence, and the plain mean over sequences.
//
// Input (UTF-8, one photo sequence a line): the submitted story, then each human story, each
// URL-encoded (so that a text may hold any character), separated by tabs. Output: one line per sequence with its maximum, then "mean <value>".
import edu.cmu.meteor.scorer.MeteorConfiguration;
import edu.cmu.meteor.scorer.MeteorScorer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

public class OfficialVistMeteor {
    public static void main(String[] args) throws IOException {
        MeteorConfiguration config = new MeteorConfiguration();
        config.setTask("hter");
        MeteorScorer scorer = new MeteorScorer(config);
        BufferedReader input = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        double sum = 0;
        int sequences = 0;
        String line;
        while ((line = input.readLine()) != null) {
            String[] fields = line.split("\t", -1);
            for (int i = 0; i < fields.length; i++) {
                fields[i] = URLDecoder.decode(fields[i], StandardCharsets.UTF_8);
            }
            double best = -1;
            for (int i = 1; i < fields.length; i++) {
                double score = scorer.getMeteorStats(fields[0], fields[i]).score;
                if (score > best) {
                    best = score;
                }
            }
            System.out.println(best);
            sum += best;
            sequences++;
        }
        System.out.println("mean " + (sum / (double) sequences));
    }
}
